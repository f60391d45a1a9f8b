"""Money written with its ISO 4217 code ("11.437 KWD", "3200 JPY", "21.5 EUR"), read with the
currency's own decimals: JPY 0, EUR 2, KWD and BHD 3. The decimals are the payments rules'
(`payments_sandbox.domain.CURRENCY_EXPONENTS`, pure Python), so what the engine reads as an
amount is what the refund rules accept.

The utterance reader's `money` entity, the domains' agents that parse a customer's amounts
and the wrong-amount fault (`evals.engine.sandbox.agent.amount_argument`) read money here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from payments_sandbox.domain import CURRENCY_EXPONENTS

CODES: tuple[str, ...] = tuple(sorted(CURRENCY_EXPONENTS))
# Decimals assumed for a currency the table does not hold (and for an amount without one).
DEFAULT_DECIMALS = 2
# An amount followed by an upper-case code: "11.437 KWD", "1,250.00 EUR", "3200JPY".
WITH_CODE = re.compile(
    rf"(?<![\d.])(\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?({'|'.join(CODES)})(?![A-Za-z])"
)


def decimals(currency: str) -> int:
    """The currency's minor-unit decimals (2 for a currency the table does not hold)."""
    return CURRENCY_EXPONENTS.get(currency.upper(), DEFAULT_DECIMALS)


def quantized(amount: Decimal, currency: str) -> str:
    """`amount` written with the currency's decimals: (Decimal("21.5"), "EUR") -> "21.50"."""
    places = decimals(currency)
    return str(amount.quantize(Decimal(1).scaleb(-places)))


def amounts(text: str) -> list[tuple[str, str]]:
    """Every amount written with a code in `text`, in order, as (the decimal string as
    written, without thousands separators; the code): "refund 11.437 KWD of 1,200 JPY" ->
    [("11.437", "KWD"), ("1200", "JPY")]."""
    return [(m.group(1).replace(",", ""), m.group(2)) for m in WITH_CODE.finditer(text)]


def canonical(text: str) -> str:
    """The first amount of `text` with its currency's decimals ("21.5 EUR" -> "21.50 EUR");
    `text` stripped when it holds none."""
    found = amounts(text)
    if not found:
        return text.strip()
    raw, currency = found[0]
    try:
        return f"{quantized(Decimal(raw), currency)} {currency}"
    except InvalidOperation:
        return text.strip()


def is_amount(value: Any, currency: str = "") -> bool:
    """Whether `value` is an amount as a tool takes it: a decimal string with exactly the
    currency's decimals ("3200" in JPY, "12.50" in EUR, "11.437" in KWD); two decimals when
    no currency is given ("12.50")."""
    if not isinstance(value, str):
        return False
    places = decimals(currency) if currency else DEFAULT_DECIMALS
    pattern = r"\d+" if places == 0 else rf"\d+\.\d{{{places}}}"
    return re.fullmatch(pattern, value) is not None


def currency_of(arguments: Mapping[str, Any]) -> str:
    """The currency a tool call's amounts are in: its `currency` argument when that is a code
    the table holds, else ""."""
    value = arguments.get("currency")
    return value if isinstance(value, str) and value in CURRENCY_EXPONENTS else ""
