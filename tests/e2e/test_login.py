from __future__ import annotations

import base64
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django_otp.oath import totp

from identity.demo import DEMO_PASSWORD
from identity.models import Operator
from tests.e2e.conftest import current_code

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_demo_operator_logs_in_with_password_and_totp_and_reaches_their_inbox(
    logged_in_page: Any, settings: Any
) -> None:
    call_command("seed_demo", stdout=StringIO())
    alice = Operator.objects.get(username="alice")
    page = logged_in_page(alice, password=DEMO_PASSWORD)
    assert page.url.endswith("/tickets/")  # an agent starts the day in the inbox
    assert page.is_visible("text=Log out")
    page.click("nav.mainnav a[href='/']")
    page.wait_for_selector("text=Good to see you")


def test_a_wrong_code_keeps_the_operator_out(page: Any, make_operator: Any) -> None:
    make_operator("dora", ["agent"])
    page.goto("/login/")
    page.fill("#id_username", "dora")
    page.fill("#id_password", "correct horse battery staple")
    page.click("main button[type=submit]")
    page.wait_for_url("**/login/verify/**")
    page.fill("#id_code", "000000")
    page.click("main button[type=submit]")
    page.wait_for_selector("[role=alert]")
    assert "/login/verify/" in page.url
    page.goto("/security/")
    assert "/login/verify/" in page.url


def test_first_login_enrols_an_authenticator_app_then_shows_backup_codes(
    page: Any, make_operator: Any
) -> None:
    make_operator("fresh", ["agent"], totp=False)
    page.goto("/login/")
    page.fill("#id_username", "fresh")
    page.fill("#id_password", "correct horse battery staple")
    page.click("main button[type=submit]")
    page.wait_for_url("**/login/enroll/**")
    assert page.locator(".qr svg").count() == 1
    secret = page.inner_text("[data-testid=totp-secret]").strip()
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    page.fill("#id_code", f"{totp(key):06d}")
    page.click("main button[type=submit]")
    page.wait_for_selector("[data-testid=backup-codes]")
    codes = page.locator("[data-testid=backup-codes] li")
    assert codes.count() == 10
    page.click("text=Continue")
    page.wait_for_url("**/tickets/")


def test_current_code_matches_the_device(make_operator: Any) -> None:
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.get(user=make_operator("gus"))
    assert device.verify_token(current_code(device))
