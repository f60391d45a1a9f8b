"""An approver works the refund approvals queue in a real browser."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator
from payments_sandbox.domain import Money
from payments_sandbox.models import Refund, RefundStatus
from payments_sandbox.services import payment_capture, refund_request

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_approver_sees_the_rehearsal_and_approves_a_refund(
    logged_in_page: Any, alice: Operator, bob: Operator
) -> None:
    payment = payment_capture(actor=None, amount=Money.parse("50.00", "USD"))
    refund = refund_request(
        actor=alice, payment_id=payment.pk, amount="12.00", reason="Arrived broken"
    )
    page = logged_in_page(bob)
    page.goto("/payments/approvals/")
    row = page.locator("table.approvals tbody tr").first
    assert "12.00 USD" in row.inner_text()
    assert "Will succeed" in row.inner_text()
    assert "38.00 USD" in row.inner_text()  # refundable after the refund
    row.locator("text=Decide").click()
    page.fill("#approve-reason", "Photo shows the damage")
    page.click("text=Approve 12.00 USD")
    page.wait_for_selector(".flash-success")
    assert "approved" in page.inner_text(".flash")
    refund.refresh_from_db()
    # Without a broker Celery runs in-process: the approved refund was executed at once.
    assert refund.status == RefundStatus.SUCCEEDED
    assert refund.decided_by == bob


def test_the_requester_cannot_approve_their_own_refund_in_the_ui(
    logged_in_page: Any, make_operator: Any
) -> None:
    carol = make_operator("carol", ["agent", "approver"])
    payment = payment_capture(actor=None, amount=Money.parse("5000", "JPY"))
    refund = refund_request(actor=carol, payment_id=payment.pk, amount="500", reason="r")
    page = logged_in_page(carol)
    page.goto(f"/payments/refunds/{refund.pk}/")
    assert page.is_visible("text=someone else must approve it")
    assert page.locator("text=Approve 500 JPY").count() == 0
    assert Refund.objects.get(pk=refund.pk).status == RefundStatus.PENDING_APPROVAL
