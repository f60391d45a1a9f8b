"""Refund requests, rehearsal, four eyes, cancellation, notifications and mode isolation at
the service layer."""

from __future__ import annotations

from typing import Any

import pytest

from backoffice.errors import Conflict, Forbidden, Unprocessable, ValidationFailed
from identity.models import AuditEvent, Operator
from payments_sandbox.domain import Money
from payments_sandbox.models import Mode, Payment, PredictedOutcome, Refund, RefundStatus
from payments_sandbox.modes import ModeMismatch
from payments_sandbox.services import (
    refund_approve,
    refund_cancel,
    refund_preview,
    refund_reject,
    refund_request,
)


def request(actor: Operator, payment: Payment, amount: str = "20.00", **kw: Any) -> Refund:
    return refund_request(
        actor=actor, payment_id=payment.pk, amount=amount, reason="Damaged item", **kw
    )


def test_a_request_is_rehearsed_and_waits_for_approval(alice: Operator, payment: Payment) -> None:
    refund = request(alice, payment, "20.00")
    assert refund.status == RefundStatus.PENDING_APPROVAL
    assert refund.money == Money(2000, "USD")
    assert refund.predicted_outcome == PredictedOutcome.SUCCEED
    assert (refund.refundable_before, refund.refundable_after, refund.refunded_after) == (
        5000,
        3000,
        2000,
    )
    assert refund.mode == Mode.SANDBOX
    event = AuditEvent.objects.get(action="refund.request")
    assert event.actor_id == alice.pk and event.target_id == str(refund.pk)


def test_the_rehearsal_predicts_a_decline(alice: Operator, payment: Payment) -> None:
    refund = request(alice, payment, "10.13")
    assert refund.predicted_outcome == PredictedOutcome.DECLINE


def test_it_rejects_refund_above_captured_amount(alice: Operator, payment: Payment) -> None:
    with pytest.raises(Unprocessable) as caught:
        request(alice, payment, "80.00")
    assert caught.value.code == "exceeds_refundable"
    assert "Refund of 80.00 USD exceeds the refundable 50.00 USD" in caught.value.message
    assert not Refund.objects.exists()


def test_pending_refunds_count_against_the_refundable_balance(
    alice: Operator, payment: Payment
) -> None:
    request(alice, payment, "30.00")
    with pytest.raises(Unprocessable, match=r"exceeds the refundable 20\.00 USD"):
        request(alice, payment, "20.01")
    request(alice, payment, "20.00")


def test_a_cancelled_or_rejected_refund_frees_its_amount(
    alice: Operator, bob: Operator, payment: Payment
) -> None:
    first = request(alice, payment, "50.00")
    refund_cancel(actor=alice, refund_id=first.pk)
    second = request(alice, payment, "50.00")
    refund_reject(actor=bob, refund_id=second.pk, reason="Not eligible")
    assert request(alice, payment, "50.00").status == RefundStatus.PENDING_APPROVAL


def test_it_rejects_too_many_decimals_and_other_currencies(
    alice: Operator, make_payment: Any
) -> None:
    jpy = make_payment("5000", "JPY")
    with pytest.raises(ValidationFailed) as caught:
        request(alice, jpy, "10.5")
    assert caught.value.fields["amount"]
    with pytest.raises(Unprocessable) as mismatch:
        request(alice, jpy, Money.parse("1.00", "USD"))  # type: ignore[arg-type]
    assert mismatch.value.code == "currency_mismatch"


def test_kwd_amounts_use_three_decimals(alice: Operator, make_payment: Any) -> None:
    kwd = make_payment("12.500", "KWD")
    refund = request(alice, kwd, "0.125")
    assert refund.amount == 125
    assert refund.refundable_after == 12375


def test_a_reversed_payment_is_not_refundable(
    alice: Operator, sam: Operator, payment: Payment
) -> None:
    from payments_sandbox.services import payment_reverse

    payment_reverse(actor=sam, payment_id=payment.pk, reason="Chargeback")
    with pytest.raises(Unprocessable) as caught:
        request(alice, payment, "1.00")
    assert caught.value.code == "payment_not_refundable"


def test_the_preview_writes_nothing(alice: Operator, payment: Payment) -> None:
    events = AuditEvent.objects.count()
    preview = refund_preview(actor=alice, payment_id=payment.pk, amount="60.00")
    assert not preview.allowed
    assert [v.code for v in preview.violations] == ["exceeds_refundable"]
    ok = refund_preview(actor=alice, payment_id=payment.pk, amount="10.07")
    assert ok.allowed and ok.prediction is not None
    assert ok.prediction.outcome == PredictedOutcome.DELAYED
    assert ok.refundable_after == Money(3993, "USD")
    assert not Refund.objects.exists()
    assert AuditEvent.objects.count() == events


def test_four_eyes_the_requester_cannot_approve_their_own_refund(
    make_operator: Any, payment: Payment
) -> None:
    both = make_operator("carol", ["agent", "approver"])
    refund = request(both, payment)
    with pytest.raises(Forbidden) as caught:
        refund_approve(actor=both, refund_id=refund.pk)
    assert caught.value.code == "four_eyes"
    with pytest.raises(Forbidden):
        refund_reject(actor=both, refund_id=refund.pk, reason="no")
    refund.refresh_from_db()
    assert refund.status == RefundStatus.PENDING_APPROVAL


def test_only_approvers_may_approve(
    alice: Operator, sam: Operator, audrey: Operator, payment: Payment
) -> None:
    refund = request(alice, payment)
    for actor in (sam, audrey, alice):
        with pytest.raises(Forbidden):
            refund_approve(actor=actor, refund_id=refund.pk)


def test_a_service_principal_can_never_approve(
    agent_runtime: tuple[Operator, Any], alice: Operator, payment: Payment
) -> None:
    principal, _ = agent_runtime
    refund = request(alice, payment)
    with pytest.raises(Forbidden):
        refund_approve(actor=principal, refund_id=refund.pk)


def test_approval_notifies_the_requester_and_the_linked_ticket(
    alice: Operator, bob: Operator, payment: Payment, django_capture_on_commit_callbacks: Any
) -> None:
    from tickets.models import Message, Notification

    ticket = _ticket(alice)
    refund = request(alice, payment, ticket_id=ticket.pk)
    with django_capture_on_commit_callbacks(execute=False):
        refund = refund_approve(actor=bob, refund_id=refund.pk, reason="Looks right")
    assert refund.status == RefundStatus.APPROVED
    assert refund.decided_by == bob
    note = Notification.objects.get(recipient=alice)
    assert "approved by Bob" in note.title and "20.00 USD" in note.title
    assert Message.objects.filter(ticket=ticket, body__contains="approved by Bob").exists()
    assert AuditEvent.objects.filter(action="refund.approve", actor_id=bob.pk).count() == 1


def test_rejection_needs_a_reason_and_notifies(
    alice: Operator, bob: Operator, payment: Payment
) -> None:
    from tickets.models import Notification

    refund = request(alice, payment)
    with pytest.raises(ValidationFailed):
        refund_reject(actor=bob, refund_id=refund.pk, reason=" ")
    refund = refund_reject(actor=bob, refund_id=refund.pk, reason="Outside policy")
    assert refund.status == RefundStatus.REJECTED
    assert Notification.objects.get(recipient=alice).body == "Outside policy"


def test_a_decided_refund_cannot_be_decided_again(
    alice: Operator, bob: Operator, payment: Payment, django_capture_on_commit_callbacks: Any
) -> None:
    refund = request(alice, payment)
    with django_capture_on_commit_callbacks(execute=False):
        refund_approve(actor=bob, refund_id=refund.pk)
    with pytest.raises(Conflict) as caught:
        refund_approve(actor=bob, refund_id=refund.pk)
    assert caught.value.code == "invalid_transition"
    with pytest.raises(Conflict):
        refund_cancel(actor=alice, refund_id=refund.pk)


def test_only_the_requester_or_a_supervisor_may_cancel(
    alice: Operator, bob: Operator, sam: Operator, make_operator: Any, payment: Payment
) -> None:
    other_agent = make_operator("dave", ["agent"])
    refund = request(alice, payment, "1.00")
    for actor in (other_agent, bob):
        with pytest.raises(Forbidden):
            refund_cancel(actor=actor, refund_id=refund.pk)
    assert refund_cancel(actor=sam, refund_id=refund.pk).status == RefundStatus.CANCELLED


def test_an_unknown_ticket_is_refused(alice: Operator, payment: Payment) -> None:
    with pytest.raises(ValidationFailed):
        request(alice, payment, ticket_id=999_999)


# -- mode isolation -------------------------------------------------------------------------


def _live_payment() -> Payment:
    from django.utils import timezone

    now = timezone.now()
    return Payment.objects.create(
        mode=Mode.LIVE,
        reference="PAY-LIVE-1",
        provider_payment_id="pi_live",
        currency="USD",
        captured_amount=5000,
        captured_at=now,
        updated_at=now,
    )


def test_a_sandbox_process_refuses_to_touch_a_live_payment(alice: Operator) -> None:
    live = _live_payment()
    with pytest.raises(ModeMismatch, match="live mode"):
        request(alice, live)
    assert not Refund.objects.exists()


def test_live_rows_are_invisible_to_a_sandbox_process(alice: Operator, payment: Payment) -> None:
    from payments_sandbox import selectors

    _live_payment()
    assert list(selectors.payment_list()) == [payment]


def test_configuring_both_modes_is_a_hard_error(settings: Any) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from payments_sandbox.modes import check_configuration

    settings.PAYMENTS_MODE = "sandbox"
    settings.STRIPE_API_KEY = "sk_test_123"
    with pytest.raises(ImproperlyConfigured, match="one mode"):
        check_configuration()
    settings.PAYMENTS_MODE = "live"
    settings.STRIPE_API_KEY = ""
    with pytest.raises(ImproperlyConfigured):
        check_configuration()
    settings.PAYMENTS_MODE = "sandbox,live"
    with pytest.raises(ImproperlyConfigured):
        check_configuration()


def test_a_live_process_refuses_sandbox_rows(
    settings: Any, alice: Operator, bob: Operator, payment: Payment
) -> None:
    refund = request(alice, payment)
    settings.PAYMENTS_MODE = "live"
    settings.STRIPE_API_KEY = "sk_test_123"
    with pytest.raises(ModeMismatch):
        refund_approve(actor=bob, refund_id=refund.pk)


def _ticket(member: Operator) -> Any:
    """A ticket in a queue `member` works (a refund may link only a ticket its requester
    can see)."""
    from django.utils import timezone

    from tickets.models import Customer, Queue, QueueMembership, Ticket

    customer = Customer.objects.create(email="c@example.test", name="C")
    queue = Queue.objects.create(name="Refund desk", slug="refund-desk")
    QueueMembership.objects.create(queue=queue, operator=member)
    now = timezone.now()
    return Ticket.objects.create(
        subject="Broken", customer=customer, queue=queue, created_at=now, updated_at=now
    )
