"""Finding 7 (Low): the session key was not rotated when the second factor was accepted, so a
key known while the session was only half logged in (planted by an attacker, read off a
shared screen or a proxy log) became a fully verified session once the operator typed their
code. The key now changes at the code prompt and at first-login enrolment; the sessions page
keeps listing the browser under its new key."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django_otp.oath import totp

from identity.models import Operator, OperatorSession
from tests.identity.helpers import code_for, device_of, password_login

pytestmark = pytest.mark.django_db


def _with_cookie(key: str) -> Client:
    """The attacker's browser: only the session cookie the victim's browser was holding."""
    thief = Client()
    thief.cookies[settings.SESSION_COOKIE_NAME] = key
    return thief


def _session_key(client: Client) -> str:
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_a_session_key_known_before_the_code_is_useless_after_it(alice: Operator) -> None:
    victim = Client()
    password_login(victim, "alice")
    fixed = _session_key(victim)
    # Before the code, the key leads only to the code prompt.
    assert _with_cookie(fixed).get("/tickets/")["Location"].startswith("/login/verify/")
    response = victim.post("/login/verify/", {"code": code_for(device_of(alice))})
    assert response.status_code == 302
    assert _session_key(victim) != fixed
    assert victim.get("/tickets/").status_code == 200
    thief = _with_cookie(fixed)
    response = thief.get("/tickets/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert thief.get("/api/v1/tickets").status_code in (401, 403)


def test_the_key_changes_when_first_login_enrolment_verifies_the_session(
    make_operator: Any,
) -> None:
    make_operator("fresh", ["agent"], totp=False)
    victim = Client()
    password_login(victim, "fresh")
    page = victim.get("/login/enroll/")
    fixed = _session_key(victim)
    match = re.search(rb'data-testid="totp-secret">([A-Z2-7]+)<', page.content)
    assert match is not None
    secret = match.group(1).decode()
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    response = victim.post("/login/enroll/", {"code": f"{totp(key):06d}"})
    assert b'data-testid="backup-codes"' in response.content
    assert _session_key(victim) != fixed
    assert victim.get("/tickets/").status_code == 200
    assert _with_cookie(fixed).get("/tickets/")["Location"].startswith("/login/")


def test_the_sessions_page_follows_the_browser_to_its_new_key(alice: Operator) -> None:
    browser = Client(HTTP_USER_AGENT="laptop")
    password_login(browser, "alice")
    before = _session_key(browser)
    assert OperatorSession.objects.filter(session_key=before).exists()
    browser.post("/login/verify/", {"code": code_for(device_of(alice))})
    rows = OperatorSession.objects.filter(operator=alice)
    assert [row.session_key for row in rows] == [_session_key(browser)]
    page = browser.get("/security/")
    assert page.context["current_key"] == _session_key(browser)
    assert [s.user_agent for s in page.context["sessions"]] == ["laptop"]
