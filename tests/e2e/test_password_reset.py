"""Issue 14: an admin resets a forgotten password, in a person's browser at a desk's and a
phone's width. Ada asks (she sees the request wait and cannot approve it herself), Adam — a
second admin — approves and alone sees the temporary password, and Alice signs in with it and
her own authenticator and lands on the form to choose her own."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator, Role
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _fits(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width}px wide"


def test_a_forgotten_password_is_reset_by_two_admins(
    person_page: Any, live_server: Any, ada: Operator, alice: Operator, make_operator: Any
) -> None:
    adam = make_operator("adam", [Role.ADMIN])
    page = sign_in(person_page, ada, PASSWORD)
    page.goto(f"/operators/{alice.pk}/")
    read(page)
    page.fill("#id_password-reason", "Forgot it after leave; I called her back on the desk number.")
    page.click("[data-testid=password-reset-ask]")
    page.wait_for_selector("[data-testid=password-reset-pending]")
    read(page)
    # Ada asked: she is told a second admin must approve, and has no button to do it.
    assert "you asked for this reset" in page.inner_text("[data-testid=password-reset-refusal]")
    assert page.locator("[data-testid=password-reset-approve]").count() == 0
    _fits(page)
    screenshot(page, "password-reset-waiting")

    # Adam, in his own browser.
    context = page.context.browser.new_context(
        base_url=live_server.url, viewport=page.viewport_size
    )
    second = context.new_page()
    second.width_name = page.width_name
    try:
        sign_in(second, adam, PASSWORD)
        second.goto("/operators/")
        read(second)
        assert "alice" in second.inner_text("[data-testid=resets-waiting]")
        second.goto(f"/operators/{alice.pk}/")
        read(second)
        second.click("[data-testid=password-reset-approve]")
        second.wait_for_selector("[data-testid=temporary-password]")
        read(second)
        temporary = second.inner_text("[data-testid=temporary-password]").strip()
        _fits(second)
        screenshot(second, "password-reset-approved")
    finally:
        context.close()
    alice.refresh_from_db()
    assert alice.check_password(temporary) and alice.must_change_password

    # Ada's page shows the reset done, never the password.
    page.goto(f"/operators/{alice.pk}/")
    read(page)
    assert temporary not in page.content()
    assert page.is_visible("text=temporary: replaced at next login")

    # Alice: the temporary password and her own code, then nothing but the form.
    context = page.context.browser.new_context(
        base_url=live_server.url, viewport=page.viewport_size
    )
    hers = context.new_page()
    hers.width_name = page.width_name
    try:
        sign_in(hers, alice, temporary)
        hers.wait_for_url("**/security/password/**")
        assert hers.is_visible("h1:has-text('Set your password')")
        _fits(hers)
        screenshot(hers, "password-reset-forced-change")
    finally:
        context.close()
