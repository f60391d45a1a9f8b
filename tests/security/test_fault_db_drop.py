"""Fault injection (PostgreSQL leg): the database drops the app's connection mid-request.

While the AI agent's refund request is being written (the refund row inserted, the audit
event next), another session runs `pg_terminate_backend` on the app's connection, as a
PostgreSQL restart or a failover does. The request must fail cleanly (a JSON 503 with
Retry-After, nothing half-written: no refund without its audit event, no idempotency record),
Django must replace the dead connection at the request boundary, and the client's retry with
the same Idempotency-Key must then write the refund exactly once.
"""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from django.db import close_old_connections, connection

from identity.models import AuditEvent
from payments_sandbox.domain import Money
from payments_sandbox.models import Refund
from payments_sandbox.services import payment_capture
from payments_sandbox.services import refunds as refund_services
from tests.conftest import make_service_token

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="pg_terminate_backend is PostgreSQL's"
    ),
]


def _terminate(pid: int) -> None:
    s = connection.settings_dict
    with psycopg.connect(
        dbname=s["NAME"],
        user=s["USER"],
        password=s.get("PASSWORD") or None,
        host=s.get("HOST") or "127.0.0.1",
        port=s.get("PORT") or 5432,
        autocommit=True,
    ) as killer:
        killer.execute("SELECT pg_terminate_backend(%s)", [pid])


@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_mid_write_leaves_nothing_half_written_and_the_retry_writes_once(
    monkeypatch: Any,
) -> None:
    from django.test import Client

    payment = payment_capture(
        actor=None, amount=Money.parse("50.00", "USD"), customer_email="c@example.test"
    )
    _, raw = make_service_token(["refunds:request", "refunds:read", "payments:read"])
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {raw}")
    body = {"payment_id": payment.pk, "amount": "12.00", "reason": "never arrived"}
    key = str(uuid.uuid4())

    real_audit = refund_services.audit_record
    dropped: list[int] = []

    def audit_after_the_connection_died(**kwargs: Any) -> Any:
        if not dropped:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                (pid,) = cursor.fetchone()
            _terminate(pid)
            dropped.append(pid)
        return real_audit(**kwargs)

    monkeypatch.setattr(refund_services, "audit_record", audit_after_the_connection_died)
    response = client.post(
        "/api/v1/refunds/request",
        body,
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )
    assert dropped, "the connection was never dropped"
    # A database gone for a moment is not a server bug: 503, retry later, in the JSON shape.
    assert response.status_code == 503, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response["Retry-After"]
    assert response.json()["error"]["code"] == "database_unavailable"
    # Django closes an unusable connection when the request ends (the test client skips
    # that signal, so do what the request boundary does).
    close_old_connections()
    connection.close_if_unusable_or_obsolete()

    # Nothing half-written: no refund, no audit event for it.
    assert not Refund.objects.filter(payment=payment).exists()
    assert not AuditEvent.objects.filter(action="refund.request").exists()

    retry = client.post(
        "/api/v1/refunds/request",
        body,
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )
    assert retry.status_code == 201, retry.content
    again = client.post(
        "/api/v1/refunds/request",
        body,
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )
    assert again.json() == retry.json()  # the replay, not a second refund
    assert Refund.objects.filter(payment=payment).count() == 1
    assert AuditEvent.objects.filter(action="refund.request").count() == 1
