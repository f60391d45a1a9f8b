from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from identity.audit import audit_record
from identity.models import Operator
from tests.identity.helpers import code_for, device_of

pytestmark = pytest.mark.django_db


def test_totp_code_prints_the_current_code_when_debugging(alice: Operator, settings) -> None:
    settings.DEBUG = True
    out = StringIO()
    call_command("totp_code", "alice", stdout=out)
    assert out.getvalue().split()[0] == code_for(device_of(alice))


def test_totp_code_refuses_to_run_without_debug(alice: Operator, settings) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG"):
        call_command("totp_code", "alice", stdout=StringIO())


def test_audit_head_prints_the_last_sequence_number_and_hash(alice: Operator) -> None:
    audit_record(actor=alice, action="test.one")
    last = audit_record(actor=alice, action="test.two")
    out = StringIO()
    call_command("audit", "head", stdout=out)
    assert out.getvalue().strip() == f"#{last.seq} {last.hash}"
