"""Finding 7 (Low), the parts in the kernel and the audit export: TRACE answered 403 (as if
someone else might be allowed) instead of 405; the CSV formula guard let a cell starting with
a TAB or a CR through, which spreadsheets skip before reading a formula."""

from __future__ import annotations

import csv
import io

import pytest
from django.http import StreamingHttpResponse
from django.test import Client

from identity.audit import audit_record
from tests.conftest import verified_client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/", "/login/", "/tickets/", "/api/v1/tickets", "/api/schema/"])
def test_trace_is_not_allowed_for_anyone(path, sam) -> None:
    for client in (Client(), verified_client(sam)):
        response = client.generic("TRACE", path)
        assert response.status_code == 405, (path, response.status_code)
        assert "TRACE" not in response["Allow"] and "GET" in response["Allow"]


def test_the_audit_export_quotes_cells_a_spreadsheet_would_run(audrey, alice) -> None:
    payloads = ["\t=cmd|' /C calc'!A0", "\r=1+1", "=1+1", "+1", "-1", "@SUM(A1)"]
    for i, payload in enumerate(payloads):
        audit_record(actor=alice, action=f"test.csv{i}", target_type="x", target_id=payload)
    export = verified_client(audrey).get("/audit/export.csv", {"action": "test."})
    assert isinstance(export, StreamingHttpResponse)
    rows = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode())))
    target_ids = {row[5]: row[7] for row in rows[1:]}
    for i, payload in enumerate(payloads):
        assert target_ids[f"test.csv{i}"] == "'" + payload
