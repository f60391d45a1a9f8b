"""A payment's timeline (its page's history): every step of every refund, in the order it
happened, with the tone the page colours it by."""

from __future__ import annotations

from typing import Any

from identity.models import Operator
from payments_sandbox.models import Payment
from payments_sandbox.selectors import payment_timeline
from payments_sandbox.services import refund_approve, refund_execute, refund_reject, refund_request


def test_each_refund_tells_its_own_steps_in_order(
    alice: Operator,
    bob: Operator,
    payment: Payment,
    sandbox: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    adapter = sandbox()
    paid = refund_request(actor=alice, payment_id=payment.pk, amount="20.00", reason="r")
    with django_capture_on_commit_callbacks(execute=False):
        refund_approve(actor=bob, refund_id=paid.pk)
    refund_execute(refund_id=paid.pk, adapter=adapter)
    # The sandbox declines amounts ending in .13 (tests/payments_sandbox/test_execution.py).
    declined = refund_request(actor=alice, payment_id=payment.pk, amount="10.13", reason="r")
    with django_capture_on_commit_callbacks(execute=False):
        refund_approve(actor=bob, refund_id=declined.pk)
    refund_execute(refund_id=declined.pk, adapter=adapter)
    rejected = refund_request(actor=alice, payment_id=payment.pk, amount="1.00", reason="r")
    refund_reject(actor=bob, refund_id=rejected.pk, reason="no")

    entries = payment_timeline(payment=payment)

    assert [(e.what, e.refund_id, e.tone) for e in entries] == [
        ("Captured 50.00 USD", None, ""),
        ("Refund of 20.00 USD requested", paid.pk, ""),
        ("Rehearsed: Will succeed", paid.pk, ""),
        ("Approved", paid.pk, ""),
        ("Sent to the provider", paid.pk, ""),
        ("Refunded 20.00 USD by the provider", paid.pk, "ok"),
        ("Refund of 10.13 USD requested", declined.pk, ""),
        ("Rehearsed: Will be declined", declined.pk, "bad"),
        ("Approved", declined.pk, ""),
        ("Sent to the provider", declined.pk, ""),
        ("Declined by the provider", declined.pk, "bad"),
        ("Refund of 1.00 USD requested", rejected.pk, ""),
        ("Rehearsed: Will succeed", rejected.pk, ""),
        ("Rejected", rejected.pk, "bad"),
    ]
    assert [e.who for e in entries[1:4]] == [alice, None, bob]
