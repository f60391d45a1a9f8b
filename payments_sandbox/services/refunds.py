"""Refund requests and decisions: request (with rehearsal), preview, approve, reject, cancel.

Nothing here moves money. Approval hands the refund to payments_sandbox.tasks.refund_execute
once the approving transaction has committed.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import DomainError, Forbidden, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from payments_sandbox import access
from payments_sandbox.adapters import Prediction, rehearsal_adapter
from payments_sandbox.domain import (
    Money,
    RefundState,
    RuleViolation,
    check_refund_request,
    refundable,
    rehearse_balances,
)
from payments_sandbox.models import Payment, Refund
from payments_sandbox.modes import ModeMismatch
from payments_sandbox.selectors import payment_get, refundable_facts
from payments_sandbox.services._common import (
    lock_payment,
    lock_refund,
    move,
    parse_amount,
    refund_snapshot,
    refuse,
)

MAX_REASON = 1000


@dataclass(frozen=True)
class RefundPreview:
    """What a refund request would do, computed without writing anything."""

    payment: Payment
    amount: Money
    violations: list[RuleViolation]
    prediction: Prediction | None
    refundable_before: Money
    refundable_after: Money | None
    refunded_after: Money | None

    @property
    def allowed(self) -> bool:
        return not self.violations


def _preview(payment: Payment, amount: Money) -> RefundPreview:
    facts = refundable_facts(payment)
    violations = check_refund_request(facts, amount)
    if violations:
        return RefundPreview(payment, amount, violations, None, refundable(facts), None, None)
    before, after, refunded_after = rehearse_balances(facts, amount)
    prediction = rehearsal_adapter().rehearse_refund(
        provider_payment_id=payment.provider_payment_id, amount=amount
    )
    return RefundPreview(payment, amount, [], prediction, before, after, refunded_after)


def refund_preview(*, actor: Operator, payment_id: int, amount: Money | str) -> RefundPreview:
    """Validate and rehearse a refund without creating it (no write, no audit event)."""
    access.require(access.can_request_refund(actor), "You may not request refunds.")
    payment = payment_get(payment_id=payment_id)
    return _preview(payment, parse_amount(amount, payment.currency))


def _clean_reason(reason: str, *, required: bool) -> str:
    reason = (reason or "").strip()
    if required and not reason:
        raise ValidationFailed(
            gettext("Give a reason."), fields={"reason": [gettext("This field is required.")]}
        )
    if len(reason) > MAX_REASON:
        raise ValidationFailed(
            gettext("The reason is longer than %(MAX_REASON)s characters.")
            % {"MAX_REASON": MAX_REASON},
            fields={
                "reason": [
                    gettext("At most %(MAX_REASON)s characters.") % {"MAX_REASON": MAX_REASON}
                ]
            },
        )
    return reason


def refund_request(
    *,
    actor: Operator,
    payment_id: int,
    amount: Money | str,
    reason: str,
    ticket_id: int | None = None,
) -> Refund:
    """Validate under the payment's row lock, rehearse against the sandbox, and queue the
    refund for a human approver (state pending_approval)."""
    access.require(access.can_request_refund(actor), "You may not request refunds.")
    reason = _clean_reason(reason, required=True)
    if ticket_id is not None:
        from tickets import access as tickets_access
        from tickets.models import Ticket

        # Only a ticket the requester may see: linking another team's ticket would put its
        # customer's case in front of this refund's approver (and confirm that it exists).
        visible = Ticket.objects.filter(tickets_access.visible_q(actor), pk=ticket_id)
        if not visible.exists():
            raise ValidationFailed(
                gettext("No such ticket."),
                fields={"ticket_id": [gettext("No ticket with this id.")]},
            )
    # No savepoint: under the Idempotency-Key layer this transaction is nested in the one
    # that also completes the key, and SAVEPOINT/RELEASE were two more round trips, one of
    # them while the audit chain head is locked. Without a savepoint an exception escaping
    # this block dooms the caller's transaction, so the refusals (no such payment, a row of
    # the other mode, a bad amount, rule violations) are decided here, before anything is
    # written, and raised after the block; a database error still escapes and dooms it, as
    # it must (the server has aborted the transaction).
    refusal: DomainError | ModeMismatch | None = None
    with transaction.atomic(savepoint=False):
        try:
            payment = lock_payment(payment_id)
            money = parse_amount(amount, payment.currency)
            preview = _preview(payment, money)
            if preview.violations:
                raise refuse(preview.violations)
        except (DomainError, ModeMismatch) as exc:
            refusal = exc  # only reads happened: leaving the block normally changes nothing
        else:
            refund = _create_requested(actor, payment, money, preview, reason, ticket_id)
    if refusal is not None:
        raise refusal
    return refund


def _create_requested(
    actor: Operator,
    payment: Payment,
    money: Money,
    preview: RefundPreview,
    reason: str,
    ticket_id: int | None,
) -> Refund:
    assert preview.prediction is not None
    assert preview.refundable_after is not None and preview.refunded_after is not None
    now = timezone.now()
    refund = Refund(
        mode=payment.mode,
        payment=payment,
        amount=money.amount,
        currency=money.currency,
        reason=reason,
        ticket_id=ticket_id,
        requested_by=actor,
        requested_at=now,
        provider_idempotency_key=f"refund-{uuid.uuid4().hex}",
        updated_at=now,
    )
    move(refund, RefundState.REHEARSED)
    refund.predicted_outcome = preview.prediction.outcome
    refund.prediction_note = preview.prediction.note[:300]
    refund.refundable_before = preview.refundable_before.amount
    refund.refundable_after = preview.refundable_after.amount
    refund.refunded_after = preview.refunded_after.amount
    refund.rehearsed_at = now
    move(refund, RefundState.PENDING_APPROVAL)
    refund.save(force_insert=True)
    audit_record(actor=actor, action="refund.request", target=refund, after=refund_snapshot(refund))
    return refund


def _notify_decision(refund: Refund, actor: Operator, verb: str) -> None:
    from tickets.notifications import notify, post_system_note

    key = f"refund.{verb}"
    params = {"refund": refund.pk, "amount": refund.money.format(), "actor": str(actor)}
    body = refund.decision_reason
    requester = refund.requested_by
    notify(
        recipient=requester,
        kind=key,
        title_key=key,
        title_params=params,
        body=body,
        url=reverse("payments_sandbox:refund_detail", args=[refund.pk]),
        email=not requester.is_service_principal,
    )
    if refund.ticket_id is not None:
        post_system_note(
            ticket_id=refund.ticket_id,
            body_key=f"{key}_because" if body else key,
            body_params=params | {"reason": body} if body else params,
        )


def _parties(refund: Refund) -> set[int]:
    """Who took part in the request: its requester and, when it is linked to a ticket, the
    ticket's assignee and whoever escalated it. None of them may decide it: an operator who
    owns the customer's case could otherwise have a colleague (or the agent) request the
    refund and approve it themselves."""
    parties = {refund.requested_by_id}
    if refund.ticket_id is not None:
        from tickets.models import Ticket

        ticket = (
            Ticket.objects.filter(pk=refund.ticket_id)
            .values("assignee_id", "escalation__created_by_id")
            .first()
        )
        if ticket is not None:
            parties |= {ticket["assignee_id"], ticket["escalation__created_by_id"]}
    parties.discard(None)
    return parties


def _decide(*, actor: Operator, refund_id: int, reason: str, approve: bool) -> Refund:
    access.require(
        access.can_approve_refund(actor),
        "Only a human approver may approve or reject refunds.",
    )
    reason = _clean_reason(reason, required=not approve)
    with transaction.atomic():
        refund = lock_refund(refund_id)
        if actor.pk in _parties(refund):
            raise Forbidden(
                gettext(
                    "Four eyes: a refund must be decided by someone other than its requester "
                    "and anyone else who took part in its request."
                ),
                code="four_eyes",
            )
        before = refund_snapshot(refund)
        move(refund, RefundState.APPROVED if approve else RefundState.REJECTED)
        now = timezone.now()
        refund.decided_by = actor
        refund.decided_at = now
        refund.decision_reason = reason
        refund.updated_at = now
        refund.save()
        _notify_decision(refund, actor, "approved" if approve else "rejected")
        if approve:
            from payments_sandbox.tasks import refund_execute

            refund_pk = refund.pk
            # After commit: the worker must see the approved row. robust: a broker hiccup
            # must not turn a committed approval into an error; recovery re-dispatches it.
            transaction.on_commit(lambda: refund_execute.delay(refund_pk), robust=True)
        audit_record(
            actor=actor,
            action="refund.approve" if approve else "refund.reject",
            target=refund,
            before=before,
            after=refund_snapshot(refund),
        )
    return refund


def refund_approve(*, actor: Operator, refund_id: int, reason: str = "") -> Refund:
    """Four eyes: the approver is a human other than the requester. Step-up is enforced by
    the view (identity.stepup) before this is called."""
    return _decide(actor=actor, refund_id=refund_id, reason=reason, approve=True)


def refund_reject(*, actor: Operator, refund_id: int, reason: str) -> Refund:
    return _decide(actor=actor, refund_id=refund_id, reason=reason, approve=False)


def refund_cancel(*, actor: Operator, refund_id: int, reason: str = "") -> Refund:
    """Withdraw a refund before it is approved (by its requester or a supervisor)."""
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        refund = lock_refund(refund_id)
        access.require(
            access.can_cancel_refund(actor, refund),
            "Only the requester or a supervisor may cancel this refund.",
        )
        before = refund_snapshot(refund)
        move(refund, RefundState.CANCELLED)
        refund.decision_reason = reason
        refund.updated_at = timezone.now()
        refund.save()
        audit_record(
            actor=actor,
            action="refund.cancel",
            target=refund,
            before=before,
            after=refund_snapshot(refund),
        )
    return refund
