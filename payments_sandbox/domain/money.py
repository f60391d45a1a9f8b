"""Money: an integer count of minor units plus an ISO 4217 code.

The currency's exponent says how many of those units make one major unit (JPY 0, USD 2,
KWD 3). Floats never appear: text is parsed digit by digit, and arithmetic is integer
arithmetic between amounts of one currency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
