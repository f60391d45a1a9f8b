"""The pure payment rules: money across exponents, refund validation and the state machines.
No database."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments_sandbox.domain import (
    CURRENCY_EXPONENTS,
    PENDING_REFUND_STATES,
    REFUND_TRANSITIONS,
    AmountError,
    CurrencyError,
    InvalidTransition,
    Money,
    PaymentStatus,
    RefundableFacts,
    RefundState,
    check_refund_request,
    payment_status_after_refunds,
    payment_transition,
    refund_transition,
    refundable,
)

currencies = st.sampled_from(sorted(CURRENCY_EXPONENTS))
minor = st.integers(min_value=-(10**15), max_value=10**15)


@st.composite
def money_pairs(draw: st.DrawFn) -> tuple[Money, Money]:
    currency = draw(currencies)
    return Money(draw(minor), currency), Money(draw(minor), currency)


# -- money ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "currency", "amount"),
    [
        ("12.34", "USD", 1234),
        ("12.3", "USD", 1230),
        ("12", "USD", 1200),
        ("0.01", "EUR", 1),
        ("500", "JPY", 500),
        ("1.5", "KWD", 1500),
        ("0.001", "BHD", 1),
        (" 7.00 ", "gbp", 700),
    ],
)
def test_it_parses_amounts_exactly_per_currency_exponent(
    text: str, currency: str, amount: int
) -> None:
    money = Money.parse(text, currency)
    assert money.amount == amount
    assert money.currency == currency.upper()


@pytest.mark.parametrize(
    "text",
    [
        "12.345",
        "1e3",
        "1E2",
        "NaN",
        "nan",
        "inf",
        "Infinity",
        "-1",
        "+1",
        "1,000",
        "",
        " ",
        ".5",
        "5.",
        "0x10",
        "1_000",
        "١٢",
        "12.34.5",
        "12 34",
    ],
)
def test_it_rejects_amount_text_that_is_not_an_exact_usd_amount(text: str) -> None:
    with pytest.raises(AmountError):
        Money.parse(text, "USD")


def test_it_rejects_decimals_on_a_zero_decimal_currency() -> None:
    with pytest.raises(AmountError, match="JPY has no minor unit"):
        Money.parse("100.0", "JPY")


def test_it_rejects_a_fourth_decimal_on_kwd() -> None:
    with pytest.raises(AmountError, match="at most 3"):
        Money.parse("1.2345", "KWD")


def test_it_rejects_floats_and_other_non_strings() -> None:
    with pytest.raises(AmountError, match="decimal strings"):
        Money.parse(12.34, "USD")  # type: ignore[arg-type]
    with pytest.raises(AmountError):
        Money(12.5, "USD")  # type: ignore[arg-type]
    with pytest.raises(AmountError):
        Money(True, "USD")


def test_negative_amounts_need_explicit_permission() -> None:
    assert Money.parse("-0.05", "USD", allow_negative=True) == Money(-5, "USD")


def test_it_rejects_unknown_currencies() -> None:
    with pytest.raises(CurrencyError):
        Money.parse("1", "XYZ")
    with pytest.raises(CurrencyError):
        Money(1, "usd")


def test_it_refuses_arithmetic_and_comparison_across_currencies() -> None:
    usd, eur = Money(100, "USD"), Money(100, "EUR")
    with pytest.raises(CurrencyError):
        usd + eur
    with pytest.raises(CurrencyError):
        usd - eur
    with pytest.raises(CurrencyError):
        assert usd < eur
    assert usd != eur


@pytest.mark.parametrize(
    ("money", "text"),
    [
        (Money(1234, "USD"), "12.34 USD"),
        (Money(5, "USD"), "0.05 USD"),
        (Money(-5, "USD"), "-0.05 USD"),
        (Money(500, "JPY"), "500 JPY"),
        (Money(1500, "KWD"), "1.500 KWD"),
        (Money(1, "BHD"), "0.001 BHD"),
        (Money.zero("EUR"), "0.00 EUR"),
    ],
)
def test_it_formats_with_the_currency_exponent(money: Money, text: str) -> None:
    assert money.format() == text


@given(currencies, minor)
def test_formatting_and_parsing_round_trip(currency: str, amount: int) -> None:
    money = Money(amount, currency)
    assert Money.parse(money.to_decimal_string(), currency, allow_negative=True) == money


@given(money_pairs())
def test_addition_and_subtraction_are_exact_inverses(pair: tuple[Money, Money]) -> None:
    a, b = pair
    assert (a + b) - b == a
    assert a + b == b + a
    assert (a - b).amount == a.amount - b.amount


@given(money_pairs())
def test_ordering_agrees_with_minor_units(pair: tuple[Money, Money]) -> None:
    a, b = pair
    assert (a < b) == (a.amount < b.amount)
    assert (a >= b) == (a.amount >= b.amount)


@given(currencies, st.integers(min_value=0, max_value=10**12))
def test_the_decimal_string_has_exactly_the_exponents_decimals(currency: str, amount: int) -> None:
    text = Money(amount, currency).to_decimal_string()
    exponent = CURRENCY_EXPONENTS[currency]
    if exponent == 0:
        assert "." not in text
    else:
        assert len(text.split(".")[1]) == exponent


@given(currencies, st.integers(min_value=1, max_value=10**9))
def test_one_more_decimal_than_allowed_is_always_rejected(currency: str, amount: int) -> None:
    text = Money(amount, currency).to_decimal_string()
    text = text + "1" if "." in text else text + ".1"
    with pytest.raises(AmountError):
        Money.parse(text, currency)


# -- refund validation ----------------------------------------------------------------------


def facts(
    captured: str = "50.00",
    refunded: str = "0",
    pending: str = "0",
    status: str = "captured",
    currency: str = "USD",
) -> RefundableFacts:
    return RefundableFacts(
        captured=Money.parse(captured, currency),
        refunded=Money.parse(refunded, currency),
        pending=Money.parse(pending, currency),
        payment_status=status,
    )


def codes(violations: list) -> list[str]:
    return [v.code for v in violations]


def test_it_accepts_a_refund_within_the_refundable_balance() -> None:
    assert check_refund_request(facts(), Money.parse("50.00", "USD")) == []


def test_it_rejects_refund_above_captured_amount() -> None:
    violations = check_refund_request(facts(), Money.parse("80.00", "USD"))
    assert codes(violations) == ["exceeds_refundable"]
    assert violations[0].message.startswith("Refund of 80.00 USD exceeds the refundable 50.00 USD")


def test_pending_and_refunded_amounts_reduce_the_refundable_balance() -> None:
    f = facts(captured="50.00", refunded="20.00", pending="25.00", status="partially_refunded")
    assert refundable(f) == Money.parse("5.00", "USD")
    assert codes(check_refund_request(f, Money.parse("5.01", "USD"))) == ["exceeds_refundable"]
    assert check_refund_request(f, Money.parse("5.00", "USD")) == []


def test_it_rejects_zero_and_negative_amounts() -> None:
    assert codes(check_refund_request(facts(), Money.zero("USD"))) == ["amount_not_positive"]
    assert codes(check_refund_request(facts(), Money(-1, "USD"))) == ["amount_not_positive"]


def test_it_rejects_a_refund_in_another_currency() -> None:
    violations = check_refund_request(facts(), Money.parse("1.00", "EUR"))
    assert codes(violations) == ["currency_mismatch"]
    assert "EUR" in violations[0].message and "USD" in violations[0].message


@pytest.mark.parametrize("status", ["pending", "refunded", "reversed", "failed", "bogus"])
def test_it_rejects_a_refund_of_a_payment_that_is_not_refundable(status: str) -> None:
    assert "payment_not_refundable" in codes(
        check_refund_request(facts(status=status), Money.parse("1.00", "USD"))
    )


def test_it_reports_every_violated_rule() -> None:
    violations = check_refund_request(facts(status="refunded"), Money.parse("0", "EUR"))
    assert codes(violations) == [
        "amount_not_positive",
        "currency_mismatch",
        "payment_not_refundable",
    ]


@given(
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=1, max_value=10**9),
    st.sampled_from(["USD", "JPY", "KWD"]),
)
def test_an_accepted_refund_never_exceeds_captured(
    captured: int, refunded: int, pending: int, amount: int, currency: str
) -> None:
    f = RefundableFacts(
        Money(captured, currency), Money(refunded, currency), Money(pending, currency), "captured"
    )
    if not check_refund_request(f, Money(amount, currency)):
        assert refunded + pending + amount <= captured


def test_payment_status_follows_refunded_total() -> None:
    captured = Money(5000, "USD")
    assert payment_status_after_refunds(captured, Money(0, "USD")) == PaymentStatus.CAPTURED
    assert (
        payment_status_after_refunds(captured, Money(1, "USD")) == PaymentStatus.PARTIALLY_REFUNDED
    )
    assert payment_status_after_refunds(captured, captured) == PaymentStatus.REFUNDED


# -- state machines -------------------------------------------------------------------------

HAPPY_PATH = ["requested", "rehearsed", "pending_approval", "approved", "processing", "succeeded"]


def test_the_happy_path_is_allowed() -> None:
    for current, target in itertools.pairwise(HAPPY_PATH):
        assert refund_transition(current, target) == RefundState(target)


@pytest.mark.parametrize(
    ("current", "target"),
    [(s, t) for s in RefundState for t in RefundState if t not in REFUND_TRANSITIONS[s]],
)
def test_every_transition_outside_the_table_raises(current: str, target: str) -> None:
    with pytest.raises(InvalidTransition):
        refund_transition(current, target)


def test_terminal_states_have_no_way_out() -> None:
    for state in ["succeeded", "failed", "rejected", "cancelled"]:
        assert REFUND_TRANSITIONS[RefundState(state)] == frozenset()
        assert RefundState(state) not in PENDING_REFUND_STATES


def test_an_approved_refund_cannot_be_cancelled_or_approved_again() -> None:
    with pytest.raises(InvalidTransition, match="approved to cancelled"):
        refund_transition("approved", "cancelled")
    with pytest.raises(InvalidTransition):
        refund_transition("approved", "approved")


def test_an_unknown_state_is_an_error() -> None:
    with pytest.raises(ValueError):
        refund_transition("requested", "teleported")


def test_payment_transitions_are_checked() -> None:
    assert payment_transition("captured", "refunded") == PaymentStatus.REFUNDED
    with pytest.raises(InvalidTransition):
        payment_transition("refunded", "captured")


def test_the_domain_module_does_not_import_django() -> None:
    code = (
        "import sys, payments_sandbox.domain; "
        "sys.exit(1 if any(m == 'django' or m.startswith('django.') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
