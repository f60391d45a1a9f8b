"""The state machines of payments and refunds: which moves are allowed, and which states
reserve an amount or end a refund."""

from __future__ import annotations

from enum import StrEnum

from payments_sandbox.domain.money import Money


class InvalidTransition(ValueError):
    """A state change the state machine does not allow. Never ignored silently."""

    def __init__(self, kind: str, current: str, target: str) -> None:
        super().__init__(f"A {kind} cannot go from {current!s} to {target!s}.")
        self.kind = kind
        self.current = current
        self.target = target


class PaymentStatus(StrEnum):
    PENDING = "pending"
    CAPTURED = "captured"
    PARTIALLY_REFUNDED = "partially_refunded"
    REFUNDED = "refunded"
    REVERSED = "reversed"
    FAILED = "failed"


PAYMENT_TRANSITIONS: dict[PaymentStatus, frozenset[PaymentStatus]] = {
    PaymentStatus.PENDING: frozenset({PaymentStatus.CAPTURED, PaymentStatus.FAILED}),
    PaymentStatus.CAPTURED: frozenset(
        {PaymentStatus.PARTIALLY_REFUNDED, PaymentStatus.REFUNDED, PaymentStatus.REVERSED}
    ),
    PaymentStatus.PARTIALLY_REFUNDED: frozenset(
        {PaymentStatus.PARTIALLY_REFUNDED, PaymentStatus.REFUNDED, PaymentStatus.REVERSED}
    ),
    PaymentStatus.REFUNDED: frozenset(),
    PaymentStatus.REVERSED: frozenset(),
    PaymentStatus.FAILED: frozenset(),
}

REFUNDABLE_PAYMENT_STATUSES: frozenset[PaymentStatus] = frozenset(
    {PaymentStatus.CAPTURED, PaymentStatus.PARTIALLY_REFUNDED}
)


def payment_transition(current: str, target: str) -> PaymentStatus:
    cur, tgt = PaymentStatus(current), PaymentStatus(target)
    if tgt not in PAYMENT_TRANSITIONS[cur]:
        raise InvalidTransition("payment", cur, tgt)
    return tgt


def payment_status_after_refunds(captured: Money, refunded: Money) -> PaymentStatus:
    """The status a captured payment has once `refunded` of it has been paid back."""
    if refunded.is_zero():
        return PaymentStatus.CAPTURED
    if refunded >= captured:
        return PaymentStatus.REFUNDED
    return PaymentStatus.PARTIALLY_REFUNDED


class RefundState(StrEnum):
    REQUESTED = "requested"
    REHEARSED = "rehearsed"
    PENDING_APPROVAL = "pending_approval"
    APPROVED = "approved"
    PROCESSING = "processing"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    REJECTED = "rejected"
    CANCELLED = "cancelled"


REFUND_TRANSITIONS: dict[RefundState, frozenset[RefundState]] = {
    RefundState.REQUESTED: frozenset(
        {RefundState.REHEARSED, RefundState.REJECTED, RefundState.CANCELLED}
    ),
    RefundState.REHEARSED: frozenset(
        {RefundState.PENDING_APPROVAL, RefundState.REJECTED, RefundState.CANCELLED}
    ),
    RefundState.PENDING_APPROVAL: frozenset(
        {RefundState.APPROVED, RefundState.REJECTED, RefundState.CANCELLED}
    ),
    # Once approved the money may be on its way: only the executor moves it on, and a
    # cancellation must happen before approval.
    RefundState.APPROVED: frozenset({RefundState.PROCESSING}),
    RefundState.PROCESSING: frozenset({RefundState.SUCCEEDED, RefundState.FAILED}),
    RefundState.SUCCEEDED: frozenset(),
    RefundState.FAILED: frozenset(),
    RefundState.REJECTED: frozenset(),
    RefundState.CANCELLED: frozenset(),
}

# States whose amount is reserved against the payment: requested but not yet settled either
# way. The refundable balance subtracts them so two requests cannot together exceed it.
PENDING_REFUND_STATES: frozenset[RefundState] = frozenset(
    {
        RefundState.REQUESTED,
        RefundState.REHEARSED,
        RefundState.PENDING_APPROVAL,
        RefundState.APPROVED,
        RefundState.PROCESSING,
    }
)
TERMINAL_REFUND_STATES: frozenset[RefundState] = frozenset(
    state for state, targets in REFUND_TRANSITIONS.items() if not targets
)


def refund_transition(current: str, target: str) -> RefundState:
    """Return `target` as a RefundState if the move is allowed, else raise InvalidTransition.

    Staying in the same state is not allowed either: a second approval of an approved refund
    is a bug or a race, and must surface as one.
    """
    cur, tgt = RefundState(current), RefundState(target)
    if tgt not in REFUND_TRANSITIONS[cur]:
        raise InvalidTransition("refund", cur, tgt)
    return tgt
