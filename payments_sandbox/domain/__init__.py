"""The pure rules of payments: money, refund validation and the state machines.

No Django import here (a test enforces it): the Django services and the evals engine's policy
guard both call these functions, so the sandbox agent is judged by exactly the rules the
backoffice enforces.

One module per concern: `money` (Money and the currencies we accept), `states` (the payment
and refund state machines), `refunds` (what may be refunded, and the rules a request breaks).
Their names are re-exported here: `payments_sandbox.domain.Money` is the name the apps, the
evals domains and the docs use.
"""

from payments_sandbox.domain.money import (
    CURRENCY_EXPONENTS,
    MAX_MINOR_UNITS,
    AmountError,
    CurrencyError,
    Money,
    currency_exponent,
    normalize_currency,
)
from payments_sandbox.domain.refunds import (
    RefundableFacts,
    RuleViolation,
    check_refund_request,
    refundable,
    rehearse_balances,
)
from payments_sandbox.domain.states import (
    PAYMENT_TRANSITIONS,
    PENDING_REFUND_STATES,
    REFUND_TRANSITIONS,
    REFUNDABLE_PAYMENT_STATUSES,
    TERMINAL_REFUND_STATES,
    InvalidTransition,
    PaymentStatus,
    RefundState,
    payment_status_after_refunds,
    payment_transition,
    refund_transition,
)

__all__ = [
    "CURRENCY_EXPONENTS",
    "MAX_MINOR_UNITS",
    "PAYMENT_TRANSITIONS",
    "PENDING_REFUND_STATES",
    "REFUNDABLE_PAYMENT_STATUSES",
    "REFUND_TRANSITIONS",
    "TERMINAL_REFUND_STATES",
    "AmountError",
    "CurrencyError",
    "InvalidTransition",
    "Money",
    "PaymentStatus",
    "RefundState",
    "RefundableFacts",
    "RuleViolation",
    "check_refund_request",
    "currency_exponent",
    "normalize_currency",
    "payment_status_after_refunds",
    "payment_transition",
    "refund_transition",
    "refundable",
    "rehearse_balances",
]
