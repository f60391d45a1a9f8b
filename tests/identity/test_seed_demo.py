from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.demo import DEMO_OPERATORS, DEMO_PASSWORD
from identity.models import AuditEvent, Operator
from tests.identity.helpers import code_for

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def login_table(output: str) -> list[str]:
    """The printed login table and the TOTP hint under it (after the other apps' seeding
    lines; only the API token, shown once, comes after it)."""
    lines = output.splitlines()
    start = lines.index("Demo operators (add the TOTP secret to an authenticator app):")
    end = next(i for i, line in enumerate(lines) if "totp_code <username>" in line)
    return lines[start : end + 1]


def test_seed_demo_is_idempotent_and_keeps_secrets() -> None:
    first = seed()
    counts = (Operator.objects.count(), TOTPDevice.objects.count(), StaticToken.objects.count())
    keys = dict(TOTPDevice.objects.values_list("user__username", "key"))
    identity_events = AuditEvent.objects.filter(target_type__startswith="identity.")
    events = identity_events.count()
    second = seed()
    assert (
        Operator.objects.count(),
        TOTPDevice.objects.count(),
        StaticToken.objects.count(),
    ) == counts
    assert dict(TOTPDevice.objects.values_list("user__username", "key")) == keys
    assert identity_events.count() == events
    assert login_table(first) == login_table(second)
    for username, _, role in DEMO_OPERATORS:
        assert username in first and str(role) in first
    assert DEMO_PASSWORD in first


def test_a_demo_operator_logs_in_with_the_printed_password_and_secret() -> None:
    seed()
    carol = Operator.objects.get(username="carol")
    device = TOTPDevice.objects.get(user=carol)
    client = Client()
    client.post("/login/", {"username": "carol", "password": DEMO_PASSWORD})
    assert client.post("/login/verify/", {"code": code_for(device)}).status_code == 302
    assert client.get("/security/").status_code == 200
