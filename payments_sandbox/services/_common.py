"""Helpers shared by the payment services: locking, mode checks, transitions."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from backoffice.errors import Conflict, NotFound, Unprocessable, ValidationFailed
from identity.audit import snapshot
from payments_sandbox.domain import (
    AmountError,
    CurrencyError,
    InvalidTransition,
    Money,
    RuleViolation,
    refund_transition,
)
from payments_sandbox.models import Payment, Refund
from payments_sandbox.modes import assert_mode

REFUND_AUDIT_FIELDS = (
    "status",
    "amount",
    "currency",
    "payment",
    "predicted_outcome",
    "decided_by",
    "decision_reason",
    "provider_refund_id",
    "provider_status",
    "failure_reason",
)


def refund_snapshot(refund: Refund) -> dict[str, Any]:
    return snapshot(refund, REFUND_AUDIT_FIELDS)


def lock_payment(payment_id: int) -> Payment:
    """The payment, its row locked until the transaction ends. The lock serialises every
    refund decision on one payment: the refundable balance is read and the new refund
    inserted while no other request can do the same (SQLite has no row locks: its IMMEDIATE
    transaction already holds the database's write lock, and Django leaves FOR UPDATE out)."""
    try:
        payment = Payment.objects.select_for_update().get(pk=payment_id)
    except Payment.DoesNotExist:
        raise NotFound(gettext("No such payment.")) from None
    assert_mode(payment)
    return payment


def lock_refund(refund_id: int) -> Refund:
    refund = (
        Refund.objects.select_for_update(of=("self",))
        .select_related("payment", "requested_by")
        .filter(pk=refund_id)
        .first()
    )
    if refund is None:
        raise NotFound(gettext("No such refund."))
    assert_mode(refund)
    return refund


def move(refund: Refund, target: str) -> None:
    try:
        refund.status = refund_transition(refund.status, target)
    except InvalidTransition as exc:
        raise Conflict(
            gettext("Refund #%(pk)s is %(lower)s and cannot become %(replace)s.")
            % {
                "pk": refund.pk,
                "lower": refund.get_status_display().lower(),
                "replace": target.replace("_", " "),
            },
            code="invalid_transition",
        ) from exc


def parse_amount(amount: Money | str, currency: str) -> Money:
    if isinstance(amount, Money):
        return amount
    try:
        return Money.parse(amount, currency)
    except (AmountError, CurrencyError) as exc:
        raise ValidationFailed(
            str(exc), code="invalid_amount", fields={"amount": [str(exc)]}
        ) from exc


def refuse(violations: list[RuleViolation]) -> Unprocessable:
    return Unprocessable(
        " ".join(v.message for v in violations),
        code=violations[0].code,
        fields={"amount": [v.message for v in violations]},
    )
