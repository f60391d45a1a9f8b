"""Money written with an ISO code, read by the engine with each currency's own decimals
(`evals.engine.understanding.money`): what the customer reader, the domains' agents and the
wrong-amount fault share, so no domain needs its own copy."""

from __future__ import annotations

from evals.domains.billing.scripted import vocab as billing_vocab
from evals.engine.understanding import money
from payments_sandbox.domain import CURRENCY_EXPONENTS


def test_the_decimals_are_those_of_the_payments_rules() -> None:
    assert (money.decimals("JPY"), money.decimals("EUR"), money.decimals("KWD")) == (0, 2, 3)
    assert money.decimals("BHD") == 3 and set(money.CODES) == set(CURRENCY_EXPONENTS)
    assert money.decimals("XYZ") == money.DEFAULT_DECIMALS  # unknown: two, as most


def test_amounts_are_found_as_written_and_made_canonical_with_their_decimals() -> None:
    text = "I was charged 11.437 KWD, not 1,200 JPY; refund 2.5 BHD or 7EUR"
    assert money.amounts(text) == [
        ("11.437", "KWD"),
        ("1200", "JPY"),
        ("2.5", "BHD"),
        ("7", "EUR"),
    ]
    assert money.canonical("2.5 BHD") == "2.500 BHD" and money.canonical("21.5 EUR") == "21.50 EUR"
    assert money.canonical("3200 JPY") == "3200 JPY" and money.canonical(" no money ") == "no money"
    # Lower case is a word, not a code; digits glued to a longer word are not an amount.
    assert money.amounts("try 3 try, 12 kwd, 5 EURO") == []


def test_an_amount_as_a_tool_takes_it_has_exactly_the_currencys_decimals() -> None:
    assert money.is_amount("3200", "JPY") and not money.is_amount("3200.00", "JPY")
    assert money.is_amount("11.437", "KWD") and not money.is_amount("11.43", "KWD")
    assert money.is_amount("12.50") and not money.is_amount("12.5") and not money.is_amount(12)
    assert money.currency_of({"currency": "BHD"}) == "BHD"
    assert money.currency_of({"currency": "bhd"}) == money.currency_of({}) == ""


def test_billing_reads_money_through_the_engine_and_keeps_no_pattern_of_its_own() -> None:
    assert not any(p.kind == "money" for p in billing_vocab.ENTITIES)
    assert not hasattr(billing_vocab, "MONEY") and not hasattr(billing_vocab, "canonical_money")
    act = billing_vocab.READER.read("I will request a refund of 9.625 BHD on CH-123456.")
    assert [e.value for e in act.entities if e.kind == "money"] == ["9.625 BHD"]
    assert billing_vocab.moneys("refund 11.437 KWD of 3200 JPY") == [
        ("11.437", "KWD"),
        ("3200", "JPY"),
    ]
