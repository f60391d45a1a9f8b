"""Sandbox or live is visible everywhere money is (issue 15, item 6): with PAYMENTS_MODE=live
every payments page and every approval carries a permanent red banner and a red page, and
says "sandbox" nowhere; in sandbox mode the same pages carry an amber sandbox marker. An
approver walks them in a real browser at a desk's and at a phone's width."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator
from payments_sandbox.domain import Money
from payments_sandbox.models import Payment, Refund
from payments_sandbox.services import payment_capture, refund_request
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _money_on_the_books(alice: Operator) -> tuple[Payment, Refund]:
    payment = payment_capture(actor=None, amount=Money.parse("80.00", "EUR"))
    refund = refund_request(
        actor=alice, payment_id=payment.pk, amount="30.00", reason="Parcel lost in transit"
    )
    return payment, refund


def _pages(payment: Payment, refund: Refund) -> list[tuple[str, str]]:
    return [
        ("payments", "/payments/"),
        ("payment", f"/payments/{payment.pk}/"),
        ("approvals", "/payments/approvals/"),
        ("refund", f"/payments/refunds/{refund.pk}/"),
        ("reconciliation", "/payments/reconciliation/"),
    ]


def _topbar_colour(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.querySelector('.topbar')).backgroundColor"))


def test_live_mode_is_a_red_banner_on_every_payments_page_and_approval_and_never_says_sandbox(
    person_page: Any, alice: Operator, bob: Operator, settings: Any
) -> None:
    payment, refund = _money_on_the_books(alice)
    # These rows stand for real payments: the sandbox capture made them; live mode reads only
    # rows of its own mode.
    Payment.objects.filter(pk=payment.pk).update(mode="live")
    Refund.objects.filter(pk=refund.pk).update(mode="live")
    settings.PAYMENTS_MODE = "live"
    settings.STRIPE_API_KEY = "sk_live_only_for_this_page_test"
    page = sign_in(person_page, bob, PASSWORD)
    page.goto("/")
    read(page)
    plain_topbar = _topbar_colour(page)
    marker = page.locator("[data-testid=panel-marker]")
    assert marker.inner_text().strip() == "LIVE"  # the approvals panel on the home page
    for name, url in _pages(payment, refund):
        page.goto(url)
        read(page)
        banner = page.locator("[data-testid=payments-mode]")
        assert banner.get_attribute("data-mode") == "live", name
        assert banner.is_visible() and "real money" in banner.inner_text(), name
        # At the top of the page, above everything else, as a person first sees it.
        assert banner.bounding_box()["y"] < 5, name
        assert "payments-live" in (page.get_attribute("body", "class") or ""), name
        assert _topbar_colour(page) != plain_topbar, name
        assert "sandbox" not in page.inner_text("body").lower(), name
        screenshot(page, f"mode-live-{name}")
    page.goto(f"/payments/refunds/{refund.pk}/")
    warning = page.locator("[data-testid=approve-mode]")
    assert "real money" in warning.inner_text()
    assert page.locator("form.approve-live button", has_text="Approve 30.00 EUR").is_visible()


def test_sandbox_mode_marks_every_payments_page_and_approval_as_sandbox(
    person_page: Any, alice: Operator, bob: Operator
) -> None:
    payment, refund = _money_on_the_books(alice)
    page = sign_in(person_page, bob, PASSWORD)
    page.goto("/")
    read(page)
    assert page.locator("[data-testid=panel-marker]").inner_text().strip() == "SANDBOX"
    for name, url in _pages(payment, refund):
        page.goto(url)
        read(page)
        banner = page.locator("[data-testid=payments-mode]")
        assert banner.get_attribute("data-mode") == "sandbox", name
        assert "no real money" in banner.inner_text(), name
        assert "payments-sandbox" in (page.get_attribute("body", "class") or ""), name
        assert "LIVE" not in banner.inner_text()
        screenshot(page, f"mode-sandbox-{name}")
    page.goto(f"/payments/refunds/{refund.pk}/")
    assert "no real money" in page.inner_text("[data-testid=approve-mode]")
    assert page.locator("form.approve-live").count() == 0
    # Pages without money carry no payments marker.
    page.goto("/security/")
    read(page)
    assert page.locator("[data-testid=payments-mode]").count() == 0
