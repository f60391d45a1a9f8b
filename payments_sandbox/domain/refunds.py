"""Refund validation: what may still be refunded of a payment, and every rule a refund
request breaks."""

from __future__ import annotations

from dataclasses import dataclass

from payments_sandbox.domain.money import Money
from payments_sandbox.domain.states import REFUNDABLE_PAYMENT_STATUSES, PaymentStatus


@dataclass(frozen=True)
class RefundableFacts:
    """What is known about a payment when a refund is asked for. `refunded` counts refunds
    that succeeded; `pending` those requested and not yet succeeded, failed, rejected or
    cancelled."""

    captured: Money
    refunded: Money
    pending: Money
    payment_status: str


@dataclass(frozen=True)
class RuleViolation:
    code: str
    message: str


def refundable(facts: RefundableFacts) -> Money:
    """Captured minus refunded minus pending, never below zero."""
    left = facts.captured - facts.refunded - facts.pending
    return left if left.amount > 0 else Money.zero(facts.captured.currency)


def check_refund_request(facts: RefundableFacts, amount: Money) -> list[RuleViolation]:
    """Every rule a refund request breaks, in a fixed order; empty when it may proceed.

    Messages are written for the operator or agent who asked, and say what would be allowed.
    """
    violations: list[RuleViolation] = []
    if amount.amount <= 0:
        violations.append(
            RuleViolation(
                "amount_not_positive",
                f"Refund amount must be greater than zero; got {amount.format()}.",
            )
        )
    if amount.currency != facts.captured.currency:
        violations.append(
            RuleViolation(
                "currency_mismatch",
                f"Refund currency {amount.currency} does not match the payment's currency "
                f"{facts.captured.currency}.",
            )
        )
    try:
        status = PaymentStatus(facts.payment_status)
    except ValueError:
        status = None
    if status not in REFUNDABLE_PAYMENT_STATUSES:
        violations.append(
            RuleViolation(
                "payment_not_refundable",
                f"The payment is {facts.payment_status}; only captured or partially refunded "
                "payments can be refunded.",
            )
        )
    if amount.currency == facts.captured.currency and amount.amount > 0:
        available = refundable(facts)
        if amount > available:
            violations.append(
                RuleViolation(
                    "exceeds_refundable",
                    f"Refund of {amount.format()} exceeds the refundable {available.format()} "
                    f"(captured {facts.captured.format()}, refunded {facts.refunded.format()}, "
                    f"pending {facts.pending.format()}).",
                )
            )
    return violations


def rehearse_balances(facts: RefundableFacts, amount: Money) -> tuple[Money, Money, Money]:
    """(refundable before, refundable after, total refunded after) if `amount` succeeds."""
    before = refundable(facts)
    return before, before - amount, facts.refunded + amount
