"""The audit trail as an auditor reads it (issue 15, item 11), in a real browser at a desk's
and at a phone's width: what changed (before → after, changed fields only), money in major
units with its currency, links to the objects, and filters that match prefixes in any case."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator
from payments_sandbox.domain import Money
from payments_sandbox.services import payment_capture, refund_reject, refund_request
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _row(page: Any, action: str, target: str) -> Any:
    return page.locator("[data-testid=audit-row]", has_text=action).filter(has_text=target).first


def _filter(page: Any, **fields: str) -> None:
    page.goto("/audit/")
    read(page)
    for name, value in fields.items():
        page.fill(f"#id_{name}", value)
    page.click("main form.toolbar button[type=submit]")
    page.wait_for_load_state("load")
    read(page)


def test_an_auditor_reads_what_changed_in_major_units_and_follows_the_links(
    person_page: Any, alice: Operator, bob: Operator, audrey: Operator
) -> None:
    euros = payment_capture(actor=None, amount=Money.parse("80.00", "EUR"))
    dinars = payment_capture(actor=None, amount=Money.parse("25.500", "KWD"))
    refund = refund_request(actor=alice, payment_id=euros.pk, amount="30.00", reason="Late")
    kwd = refund_request(actor=alice, payment_id=dinars.pk, amount="5.125", reason="Missing case")
    refund_reject(actor=bob, refund_id=refund.pk, reason="Delivered on time")

    page = sign_in(person_page, audrey, PASSWORD)
    page.goto("/audit/")
    read(page)
    screenshot(page, "audit-trail")

    # The request created the refund: its values, money in major units with the currency.
    requested = _row(page, "refund.request", f"Refund #{refund.pk}")
    change = requested.locator("[data-testid=audit-change]").inner_text()
    assert "amount: 30.00 EUR" in change and "3000" not in change
    kwd_change = _row(page, "refund.request", f"Refund #{kwd.pk}").inner_text()
    assert "amount: 5.125 KWD" in kwd_change

    # The rejection: only what changed, before → after.
    rejected = _row(page, "refund.reject", f"Refund #{refund.pk}")
    change = rejected.locator("[data-testid=audit-change]").inner_text()
    # A status reads as its label; the stored code stays in the tooltip for auditors.
    assert "status: Pending approval → Rejected" in change
    codes = rejected.locator("[data-testid=audit-change] [data-code]")
    assert [codes.nth(i).get_attribute("title") for i in range(codes.count())] == [
        "pending_approval",
        "rejected",
    ]
    assert "decided_by: — → Bob" in change
    assert "decision_reason: — → Delivered on time" in change
    for unchanged in ("amount", "currency", "payment", "predicted_outcome"):
        assert f"{unchanged}:" not in change, unchanged

    # Links to the objects: the refund, and the payment named in it.
    rejected.locator(f"a:has-text('Refund #{refund.pk}')").click()
    page.wait_for_url(f"**/payments/refunds/{refund.pk}/")
    read(page)
    page.go_back()
    read(page)
    requested = _row(page, "refund.request", f"Refund #{refund.pk}")
    requested.locator(f"a:has-text('Payment #{euros.pk}')").click()
    page.wait_for_url(f"**/payments/{euros.pk}/")


def test_the_audit_filters_match_prefixes_in_any_case(
    person_page: Any, alice: Operator, bob: Operator, audrey: Operator
) -> None:
    payment = payment_capture(actor=None, amount=Money.parse("80.00", "EUR"))
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="30.00", reason="Late")
    refund_reject(actor=bob, refund_id=refund.pk, reason="Delivered on time")
    page = sign_in(person_page, audrey, PASSWORD)

    _filter(page, actor="BO")
    rows = page.locator("[data-testid=audit-row]")
    assert rows.count() >= 1
    for text in rows.all_inner_texts():
        assert "Bob" in text
    assert "refund.reject" in page.inner_text("main")

    _filter(page, action="REFUND.RE")
    actions = page.locator("[data-testid=audit-row] td:nth-child(4)").all_inner_texts()
    assert sorted(actions) == ["refund.reject", "refund.request"]

    _filter(page, target_type="Payments")
    targets = page.locator("[data-testid=audit-target]").all_inner_texts()
    assert sorted(targets) == sorted(
        [f"Payment #{payment.pk}", f"Refund #{refund.pk}", f"Refund #{refund.pk}"]
    )  # the capture, the request, the rejection; nothing of identity or tickets
    screenshot(page, "audit-filtered")
