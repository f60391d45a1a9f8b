"""Issue 14, finding 6, in a person's browser at a desk's and a phone's width: a new operator
sets their own password before anything else opens (typing another address leads back to
the form), an operator changes their password from My security, and an admin sees a
two-factor reset wait for a second admin."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice import settings as production_settings
from identity import services
from identity.models import Operator, Role
from tests.conftest import PASSWORD
from tests.e2e.conftest import current_code, read, screenshot, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

OWN_PASSWORD = "violet tractor umbrella 42"


def _fits(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width}px wide"


def test_a_new_operator_sets_their_own_password_before_anything_else(
    person_page: Any, ada: Operator, settings: Any
) -> None:
    # The test settings turn the password validators off for speed; this test needs them.
    settings.AUTH_PASSWORD_VALIDATORS = production_settings.AUTH_PASSWORD_VALIDATORS
    page = person_page
    _, temporary = services.operator_create(actor=ada, username="nina", roles=[Role.AGENT])
    assert temporary
    page.goto("/login/")
    read(page)
    page.fill("#id_username", "nina")
    page.fill("#id_password", temporary)
    page.click("main button[type=submit]")
    page.wait_for_url("**/login/enroll/**")
    read(page)
    secret = page.inner_text("[data-testid=totp-secret]").strip()
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    page.fill("#id_code", f"{totp(key):06d}")
    page.click("main button[type=submit]")
    page.wait_for_selector("[data-testid=backup-codes]")
    page.click("text=Continue")
    page.wait_for_url("**/security/password/**")
    read(page)
    assert page.is_visible("h1:has-text('Set your password')")
    assert page.locator("#id_code").count() == 0
    _fits(page)
    screenshot(page, "password-forced")
    # Typing another address straight in leads back to the form.
    for path in ["/operators/", "/security/", "/tickets/"]:
        page.goto(path)
        page.wait_for_url("**/security/password/**")
    # A weak password is refused with the reason, next to the field.
    page.fill("#id_old_password", temporary)
    page.fill("#id_new_password", "12345678901234")
    page.fill("#id_new_password_again", "12345678901234")
    page.click("main form.stack button[type=submit]")
    page.wait_for_selector("[role=alert]")
    read(page)
    _fits(page)
    screenshot(page, "password-forced-refused")
    page.fill("#id_old_password", temporary)
    page.fill("#id_new_password", OWN_PASSWORD)
    page.fill("#id_new_password_again", OWN_PASSWORD)
    page.click("main form.stack button[type=submit]")
    page.wait_for_url("**/tickets/**")
    read(page)
    assert page.is_visible("text=Your password is set")
    nina = Operator.objects.get(username="nina")
    assert nina.check_password(OWN_PASSWORD) and not nina.must_change_password


def test_an_operator_changes_their_password_with_the_old_one_and_a_code(
    person_page: Any, alice: Operator
) -> None:
    page = sign_in(person_page, alice, PASSWORD)
    page.goto("/security/")
    read(page)
    page.click("main a:has-text('Change password')")
    page.wait_for_url("**/security/password/**")
    read(page)
    _fits(page)
    screenshot(page, "password-change")
    device = TOTPDevice.objects.get(user=alice, confirmed=True)
    page.fill("#id_old_password", PASSWORD)
    page.fill("#id_new_password", OWN_PASSWORD)
    page.fill("#id_new_password_again", OWN_PASSWORD)
    page.fill("#id_code", "000000" if current_code(device) != "000000" else "111111")
    page.click("main form.stack button[type=submit]")
    page.wait_for_selector("[role=alert]")
    read(page)
    screenshot(page, "password-change-wrong-code")
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
    page.fill("#id_old_password", PASSWORD)
    page.fill("#id_new_password", OWN_PASSWORD)
    page.fill("#id_new_password_again", OWN_PASSWORD)
    page.fill("#id_code", current_code(device))
    page.click("main form.stack button[type=submit]")
    page.wait_for_url("**/security/")
    read(page)
    assert page.is_visible("text=Password changed")
    alice.refresh_from_db()
    assert alice.check_password(OWN_PASSWORD)


def test_a_two_factor_reset_waits_for_a_second_admin(
    person_page: Any, ada: Operator, alice: Operator
) -> None:
    page = sign_in(person_page, ada, PASSWORD)
    page.goto(f"/operators/{alice.pk}/")
    read(page)
    page.fill("#id_totp-reason", "Lost phone; I called her back on the desk number.")
    page.click("button:has-text('Ask to reset two-factor')")
    page.wait_for_selector("[data-testid=totp-reset-pending]")
    read(page)
    assert page.is_visible("[data-testid=totp-reset-refusal]")
    assert page.locator("button:has-text('Approve the reset')").count() == 0
    _fits(page)
    screenshot(page, "totp-reset-waiting")
    assert TOTPDevice.objects.filter(user=alice).exists()


def test_the_forced_password_page_reads_in_chinese(person_page: Any, ada: Operator) -> None:
    page = person_page
    page.set_extra_http_headers({"Accept-Language": "zh-Hans"})
    operator, temporary = services.operator_create(actor=ada, username="mei", roles=[Role.AGENT])
    assert temporary
    TOTPDevice.objects.create(user=operator, name="default", confirmed=True)
    sign_in(page, operator, temporary)
    page.wait_for_url("**/security/password/**")
    assert page.is_visible("h1:has-text('设置您的密码')")
    assert page.is_visible("label:has-text('临时密码')")
    assert page.is_visible("button:has-text('设置密码并继续')")
    _fits(page)
    screenshot(page, "password-forced-zh")
