"""Payments: capturing (sandbox/demo only) and reversing."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict, ValidationFailed
from identity.audit import audit_record, snapshot
from identity.models import Operator
from payments_sandbox import access
from payments_sandbox.domain import PENDING_REFUND_STATES, Money, PaymentStatus, payment_transition
from payments_sandbox.models import Payment, Reversal
from payments_sandbox.modes import SANDBOX, current_mode
from payments_sandbox.services._common import lock_payment

PAYMENT_AUDIT_FIELDS = ("reference", "currency", "captured_amount", "refunded_amount", "status")


def payment_capture(
    *,
    actor: Operator | None,
    amount: Money,
    customer_email: str = "",
    description: str = "",
    reference: str = "",
) -> Payment:
    """Record a captured sandbox charge (demo data, tests, the evals worlds). Live payments
    are captured by the real checkout, never here."""
    if current_mode() != SANDBOX:
        raise Conflict(
            gettext("Payments are captured here only in sandbox mode."), code="live_mode"
        )
    if amount.amount <= 0:
        raise ValidationFailed(
            gettext("A captured amount must be positive."),
            fields={"amount": [gettext("Must be positive.")]},
        )
    now = timezone.now()
    with transaction.atomic():
        payment = Payment.objects.create(
            mode=SANDBOX,
            reference=reference or f"PAY-{uuid.uuid4().hex[:10].upper()}",
            provider_payment_id=f"sbx_pi_{uuid.uuid4().hex[:20]}",
            customer_email=customer_email,
            description=description,
            currency=amount.currency,
            captured_amount=amount.amount,
            status=PaymentStatus.CAPTURED,
            captured_at=now,
            updated_at=now,
        )
        audit_record(
            actor=actor,
            action="payment.capture",
            target=payment,
            after=snapshot(payment, PAYMENT_AUDIT_FIELDS),
        )
    return payment


def payment_reverse(*, actor: Operator, payment_id: int, reason: str) -> Reversal:
    """Return the whole remaining balance at once (a void or chargeback) and close the
    payment to refunds. Refused while any refund on it is still open."""
    access.require(access.can_reverse_payment(actor), "You may not reverse payments.")
    reason = (reason or "").strip()
    if not reason:
        raise ValidationFailed(
            gettext("Give a reason."), fields={"reason": [gettext("This field is required.")]}
        )
    with transaction.atomic():
        payment = lock_payment(payment_id)
        if payment.refunds.filter(status__in=[str(s) for s in PENDING_REFUND_STATES]).exists():
            raise Conflict(
                gettext("Settle or cancel the open refunds of this payment before reversing it."),
                code="open_refunds",
            )
        before = snapshot(payment, PAYMENT_AUDIT_FIELDS)
        payment.status = payment_transition(payment.status, PaymentStatus.REVERSED)
        remaining = payment.captured - payment.refunded
        now = timezone.now()
        payment.updated_at = now
        payment.save(update_fields=["status", "updated_at"])
        reversal = Reversal.objects.create(
            mode=payment.mode,
            payment=payment,
            amount=remaining.amount,
            currency=remaining.currency,
            reason=reason,
            created_by=actor,
            created_at=now,
        )
        audit_record(
            actor=actor,
            action="payment.reverse",
            target=payment,
            before=before,
            after={**snapshot(payment, PAYMENT_AUDIT_FIELDS), "reversed": remaining.format()},
        )
    return reversal
