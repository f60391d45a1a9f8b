"""The pure rules of payments: money, refund validation and the state machines.

No Django import here (a test enforces it): the Django services and the evals engine's policy
guard both call these functions, so the sandbox agent is judged by exactly the rules the
backoffice enforces.

Money is an integer count of minor units plus an ISO 4217 code; the currency's exponent says
how many of those units make one major unit (JPY 0, USD 2, KWD 3). Floats never appear: text is
parsed digit by digit, and arithmetic is integer arithmetic between amounts of one currency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

# ISO 4217 minor-unit exponents of the currencies we accept. A currency missing here is
# rejected rather than guessed: assuming 2 decimals for a zero-decimal currency would refund a
# hundred times the intended amount.
CURRENCY_EXPONENTS: dict[str, int] = {
    "AED": 2,
    "ARS": 2,
    "AUD": 2,
    "BGN": 2,
    "BHD": 3,
    "BRL": 2,
    "CAD": 2,
    "CHF": 2,
    "CLP": 0,
    "CNY": 2,
    "COP": 2,
    "CZK": 2,
    "DKK": 2,
    "EGP": 2,
    "EUR": 2,
    "GBP": 2,
    "HKD": 2,
    "HUF": 2,
    "IDR": 2,
    "ILS": 2,
    "INR": 2,
    "IQD": 3,
    "ISK": 0,
    "JOD": 3,
    "JPY": 0,
    "KRW": 0,
    "KWD": 3,
    "LYD": 3,
    "MXN": 2,
    "MYR": 2,
    "NOK": 2,
    "NZD": 2,
    "OMR": 3,
    "PHP": 2,
    "PLN": 2,
    "RON": 2,
    "SAR": 2,
    "SEK": 2,
    "SGD": 2,
    "THB": 2,
    "TND": 3,
    "TRY": 2,
    "TWD": 2,
    "UAH": 2,
    "USD": 2,
    "VND": 0,
    "XAF": 0,
    "XOF": 0,
    "ZAR": 2,
}

# Amounts are stored in signed 64-bit columns; anything larger is an input error, not money.
MAX_MINOR_UNITS = 2**63 - 1

_AMOUNT_RE = re.compile(r"^(?P<sign>-)?(?P<int>[0-9]+)(?:\.(?P<frac>[0-9]+))?$")


class CurrencyError(ValueError):
    """An unknown currency code, or arithmetic/comparison across two currencies."""


class AmountError(ValueError):
    """Text that is not an exact amount in the given currency."""


class InvalidTransition(ValueError):
    """A state change the state machine does not allow. Never ignored silently."""

    def __init__(self, kind: str, current: str, target: str) -> None:
        super().__init__(f"A {kind} cannot go from {current!s} to {target!s}.")
        self.kind = kind
        self.current = current
        self.target = target


def currency_exponent(currency: str) -> int:
    try:
        return CURRENCY_EXPONENTS[currency]
    except (KeyError, TypeError):
        raise CurrencyError(f"Unknown or unsupported currency {currency!r}.") from None


def normalize_currency(currency: str) -> str:
    """Upper-case a currency code and check that it is one we support."""
    if not isinstance(currency, str):
        raise CurrencyError(f"Currency must be a three-letter code, not {currency!r}.")
    code = currency.strip().upper()
    currency_exponent(code)
    return code


@dataclass(frozen=True)
class Money:
    """`amount` minor units of `currency` (ISO 4217, upper case)."""

    amount: int
    currency: str

    def __post_init__(self) -> None:
        # bool is an int subclass; True cents is a bug, not an amount.
        if not isinstance(self.amount, int) or isinstance(self.amount, bool):
            raise AmountError(f"Money holds integer minor units, not {type(self.amount).__name__}.")
        if abs(self.amount) > MAX_MINOR_UNITS:
            raise AmountError("Amount is too large.")
        if not isinstance(self.currency, str) or self.currency not in CURRENCY_EXPONENTS:
            raise CurrencyError(f"Unknown or unsupported currency {self.currency!r}.")

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, currency: str, *, allow_negative: bool = False) -> Money:
        """Parse a decimal string such as "12.34" exactly into minor units.

        Rejects anything that is not plain digits with an optional point: floats (pass the
        string the customer typed, not a float), exponent notation, NaN/Infinity, thousands
        separators, signs other than a leading "-" (and that only with allow_negative), and
        more decimals than the currency has ("12.345" USD, "100.0" JPY).
        """
        code = normalize_currency(currency)
        if not isinstance(text, str):
            raise AmountError(
                f"Amounts must be given as decimal strings, not {type(text).__name__}."
            )
        match = _AMOUNT_RE.match(text.strip())
        if match is None:
            raise AmountError(f"{text!r} is not an amount; write it like 12.34.")
        exponent = CURRENCY_EXPONENTS[code]
        frac = match.group("frac") or ""
        if len(frac) > exponent:
            if exponent == 0:
                raise AmountError(f"{code} has no minor unit; {text!r} must be a whole number.")
            raise AmountError(f"{code} allows at most {exponent} decimal places; got {text!r}.")
        digits = match.group("int") + frac.ljust(exponent, "0")
        if len(digits) > 19:
            raise AmountError("Amount is too large.")
        minor = int(digits)
        if match.group("sign"):
            if not allow_negative:
                raise AmountError(f"Amount must not be negative; got {text!r}.")
            minor = -minor
        if minor > MAX_MINOR_UNITS:
            raise AmountError("Amount is too large.")
        return cls(minor, code)

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(0, normalize_currency(currency))

    # -- arithmetic and comparison (same currency only) -----------------------------------

    def _same(self, other: object, op: str) -> Money:
        if not isinstance(other, Money):
            raise TypeError(f"Cannot {op} Money and {type(other).__name__}.")
        if other.currency != self.currency:
            raise CurrencyError(f"Cannot {op} {self.currency} and {other.currency}.")
        return other

    def __add__(self, other: Money) -> Money:
        return Money(self.amount + self._same(other, "add").amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        return Money(self.amount - self._same(other, "subtract").amount, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __lt__(self, other: Money) -> bool:
        return self.amount < self._same(other, "compare").amount

    def __le__(self, other: Money) -> bool:
        return self.amount <= self._same(other, "compare").amount

    def __gt__(self, other: Money) -> bool:
        return self.amount > self._same(other, "compare").amount

    def __ge__(self, other: Money) -> bool:
        return self.amount >= self._same(other, "compare").amount

    @property
    def exponent(self) -> int:
        return CURRENCY_EXPONENTS[self.currency]

    def is_positive(self) -> bool:
        return self.amount > 0

    def is_zero(self) -> bool:
        return self.amount == 0

    # -- rendering ------------------------------------------------------------------------

    def to_decimal_string(self) -> str:
        """ "12.34" for 1234 USD, "500" for 500 JPY, "1.500" for 1500 KWD."""
        sign = "-" if self.amount < 0 else ""
        digits = str(abs(self.amount))
        exponent = self.exponent
        if exponent == 0:
            return f"{sign}{digits}"
        digits = digits.rjust(exponent + 1, "0")
        return f"{sign}{digits[:-exponent]}.{digits[-exponent:]}"

    def format(self) -> str:
        return f"{self.to_decimal_string()} {self.currency}"

    def __str__(self) -> str:
        return self.format()


# -- payment and refund states ------------------------------------------------------------


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


# -- refund validation --------------------------------------------------------------------


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
