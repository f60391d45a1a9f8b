"""First-login enrolment survives what a browser does on its own (the favicon, reloads), and
a typo does not cost the operator the right code typed next."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.models import Operator
from tests.identity.helpers import code_for, device_of, password_login

pytestmark = pytest.mark.django_db


def _secret(html: bytes) -> str:
    match = re.search(rb'data-testid="totp-secret">([A-Z2-7]+)<', html)
    assert match is not None
    return match.group(1).decode()


def _code(secret: str, offset: int = 0) -> str:
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    return f"{(totp(key) + offset) % 1_000_000:06d}"


def test_the_favicon_is_a_public_icon_for_anyone() -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # an ICO header


def test_the_pending_secret_survives_reloads_and_the_favicon_until_a_new_one_is_asked_for(
    make_operator: Any,
) -> None:
    make_operator("fresh", ["agent"], totp=False)
    client = Client()
    password_login(client, "fresh")
    first = _secret(client.get("/login/enroll/").content)
    assert client.get("/favicon.ico").status_code == 200
    assert _secret(client.get("/login/enroll/").content) == first
    assert TOTPDevice.objects.filter(user__username="fresh").count() == 1
    response = client.post("/login/enroll/", {"action": "new_secret"})
    assert response.status_code == 302
    second = _secret(client.get("/login/enroll/").content)
    assert second != first
    # The old secret is gone with its device: its codes no longer enrol anything.
    response = client.post("/login/enroll/", {"code": _code(first)})
    assert b"backup-codes" not in response.content
    response = client.post("/login/enroll/", {"code": _code(second)})
    assert b'data-testid="backup-codes"' in response.content


def test_another_session_of_the_same_password_gets_its_own_secret(make_operator: Any) -> None:
    make_operator("fresh", ["agent"], totp=False)
    mine, theirs = Client(), Client()
    password_login(mine, "fresh")
    password_login(theirs, "fresh")
    assert _secret(mine.get("/login/enroll/").content) != _secret(
        theirs.get("/login/enroll/").content
    )


def test_a_right_code_typed_right_after_a_wrong_one_enrols(make_operator: Any) -> None:
    make_operator("fresh", ["agent"], totp=False)
    client = Client()
    password_login(client, "fresh")
    secret = _secret(client.get("/login/enroll/").content)
    response = client.post("/login/enroll/", {"code": _code(secret, offset=1)})
    assert b'role="alert"' in response.content
    response = client.post("/login/enroll/", {"code": _code(secret)})
    assert b'data-testid="backup-codes"' in response.content


def test_a_right_code_typed_right_after_a_wrong_one_logs_in(alice: Operator) -> None:
    client = Client()
    password_login(client, "alice")
    right = code_for(device_of(alice))
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    response = client.post("/login/verify/", {"code": wrong})
    assert response.status_code == 200
    response = client.post("/login/verify/", {"code": right})
    assert response.status_code == 302 and response["Location"] == "/tickets/"
