from functools import partial

import pytest

from evals.domains.billing.tools import TOOLS
from tests.evals_billing.conftest import charge_of, customer_in
from tests.support import tool_kit

call = partial(tool_kit.call, TOOLS)


ok = partial(tool_kit.ok, TOOLS)


def verify(world, customer):
    ok(world, "find_customer_by_email", email=customer.email)


def test_every_tool_has_a_schema_and_a_docstring_for_the_model():
    tool_kit.assert_documented_for_the_model(TOOLS)


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("get_charge", "{not json", "not valid JSON"),
        ("get_charge", "[1]", "must be a JSON object"),
        ("get_charge", "{}", "missing required argument charge_id"),
        ("get_charge", '{"charge_id": 5}', "must be a string"),
        ("get_charge", '{"charge_id": "CH-1", "x": 1}', "unexpected argument"),
        (
            "rehearse_refund",
            '{"charge_id": "CH-1", "amount": "1", "currency": "EUR", "mode": "test"}',
            "must be one of",
        ),
        (
            "transfer_to_human",
            '{"category": "billing", "summary": "x"}',
            "must be one of",
        ),
    ],
)
def test_it_answers_malformed_arguments_with_a_tool_error(world, name, raw, message):
    tool_kit.assert_malformed_is_a_tool_error(TOOLS, world, name, raw, message)


def test_it_answers_unknown_ids_and_unverified_lookups_with_a_clear_tool_error(world):
    customer = customer_in(world, "EUR")
    assert "Verify the customer first" in call(world, "get_charge", charge_id="CH-000000").content
    assert "No customer with email" in call(world, "find_customer_by_email", email="x@y.z").content
    assert (
        "No customer matches"
        in call(
            world, "find_customer_by_name", first_name="A", last_name="B", postcode="00000"
        ).content
    )
    verify(world, customer)
    assert "No charge with id" in call(world, "get_charge", charge_id="CH-000000").content
    assert "No customer with id" in call(world, "get_customer", customer_id="C0").content
    other = customer_in(world, "EUR", 1)
    assert "own account" in call(world, "get_customer", customer_id=other.id).content
    assert (
        "No charge with id"
        in call(world, "transfer_to_human", category="fraud", summary="s", reference="CH-0").content
    )


def test_it_verifies_by_name_only_with_the_right_postcode(world):
    c = customer_in(world, "KWD")
    wrong = call(
        world,
        "find_customer_by_name",
        first_name=c.first_name,
        last_name=c.last_name,
        postcode="00000",
    )
    assert wrong.error and not world.session.verified_customer_id
    found = ok(
        world,
        "find_customer_by_name",
        first_name=c.first_name.upper(),
        last_name=c.last_name,
        postcode=c.postcode,
    )
    assert found == {"customer_id": c.id} and world.session.verified_customer_id == c.id


def test_it_finds_a_charge_by_what_the_customer_knows_and_needs_two_facts(world):
    c = customer_in(world, "JPY")
    verify(world, c)
    charge = charge_of(world, c, "main")
    last4 = world.card(charge.card_id).last4
    assert "at least two" in call(world, "find_charges", customer_id=c.id, date=charge.date).content
    found = ok(
        world,
        "find_charges",
        customer_id=c.id,
        date=charge.date,
        merchant="nordic",
        card_last4=last4,
    )
    assert [f["charge_id"] for f in found] == [charge.id]
    assert found[0]["amount"] == "12800" and found[0]["refundable_balance"] == "12800"
    by_amount = ok(
        world, "find_charges", customer_id=c.id, amount="12800", currency="JPY", date=charge.date
    )
    assert [f["charge_id"] for f in by_amount] == [charge.id]
    # The currency's decimals are the payments rules': a JPY amount has none.
    assert (
        "no minor unit"
        in call(
            world,
            "find_charges",
            customer_id=c.id,
            amount="128.00",
            currency="JPY",
            date=charge.date,
        ).content
    )
    assert (
        "YYYY-MM-DD"
        in call(world, "find_charges", customer_id=c.id, date="18/09/2025", merchant="X").content
    )


def test_someone_elses_charge_is_found_only_by_its_card_and_shows_nothing_of_theirs(world):
    c, partner = customer_in(world, "EUR", 0), customer_in(world, "EUR", 1)
    verify(world, c)
    theirs = charge_of(world, partner, "main")
    last4 = world.card(theirs.card_id).last4
    found = ok(world, "find_charges", customer_id=c.id, date=theirs.date, card_last4=last4)
    assert found == [{"charge_id": theirs.id, "account_holder_is_caller": False}]
    assert ok(
        world, "find_charges", customer_id=c.id, date=theirs.date, merchant=theirs.merchant
    ) == [
        v
        for v in ok(
            world, "find_charges", customer_id=c.id, date=theirs.date, merchant=theirs.merchant
        )
        if v["account_holder_is_caller"]
    ]


def test_the_rehearsal_moves_no_money_and_names_the_approver_and_the_time(world):
    c = customer_in(world, "KWD")
    verify(world, c)
    charge = charge_of(world, c, "main")
    before = world.state_hash()
    result = ok(
        world, "rehearse_refund", charge_id=charge.id, amount="11.437", currency="KWD", mode="live"
    )
    assert world.state_hash() == before
    assert result["would_be_accepted"] and result["problems"] == []
    assert result["approver"] == "Nadia Brooks" and result["decision_within"] == "2 business days"
    assert result["refundable_after"] == "34.313"
    big = charge_of(world, c, "big")
    senior = ok(
        world, "rehearse_refund", charge_id=big.id, amount="412.500", currency="KWD", mode="live"
    )
    assert senior["approver"] == "Tom Becker" and senior["decision_within"] == "5 business days"


def test_the_rehearsal_reports_every_rule_the_refund_would_break(world):
    c = customer_in(world, "USD")
    verify(world, c)
    old = charge_of(world, c, "old")
    result = ok(
        world, "rehearse_refund", charge_id=old.id, amount="100.00", currency="USD", mode="sandbox"
    )
    assert not result["would_be_accepted"] and "approver" not in result
    text = " ".join(result["problems"])
    assert "120 days" in text and "sandbox and live never mix" in text and "exceeds" in text


def test_a_refund_request_waits_for_its_approver_and_a_second_one_is_refused(world):
    c = customer_in(world, "EUR")
    verify(world, c)
    charge = charge_of(world, c, "main")
    args = dict(
        charge_id=charge.id,
        amount="21.12",
        currency="EUR",
        mode="live",
        approver="Nadia Brooks",
        reason="r",
    )
    done = ok(world, "request_refund", **args)
    assert done["state"] == "pending_approval" and done["approver"] == "Nadia Brooks"
    mine = [r for r in world.backoffice.refund_requests if r.reference.startswith(charge.id)]
    assert [(r.amount, r.currency, r.state) for r in mine] == [(2112, "EUR", "pending_approval")]
    assert world.route(mine[0].reference).approver == "Nadia Brooks"
    again = call(world, "request_refund", **args)
    assert again.error and "no second request" in again.content
    assert (
        len([r for r in world.backoffice.refund_requests if r.reference.startswith(charge.id)]) == 1
    )


@pytest.mark.parametrize(
    ("amount", "currency", "message"),
    [
        ("21.125", "EUR", "at most 2 decimal places"),
        ("3200.0", "JPY", "no minor unit"),
        ("12.2500", "KWD", "at most 3 decimal places"),
        ("1e3", "EUR", "is not an amount"),
        ("21.12", "XYZ", "Unknown or unsupported currency"),
    ],
)
def test_a_refund_amount_follows_the_currencys_decimals(world, amount, currency, message):
    c = customer_in(world, "EUR")
    verify(world, c)
    charge = charge_of(world, c, "main")
    result = call(
        world,
        "request_refund",
        charge_id=charge.id,
        amount=amount,
        currency=currency,
        mode="live",
        approver="Nadia Brooks",
        reason="r",
    )
    assert result.error and message in result.content


def test_an_unknown_approver_is_refused(world):
    c = customer_in(world, "EUR")
    verify(world, c)
    charge = charge_of(world, c, "main")
    result = call(
        world,
        "request_refund",
        charge_id=charge.id,
        amount="1.00",
        currency="EUR",
        mode="live",
        approver="Myself",
        reason="r",
    )
    assert result.error and "Unknown approver" in result.content


def test_an_email_change_is_checked_and_recorded(world):
    c, other = customer_in(world, "USD", 0), customer_in(world, "USD", 1)
    verify(world, c)
    assert "not an email" in call(world, "update_email", customer_id=c.id, new_email="nope").content
    assert (
        "already the account's"
        in call(world, "update_email", customer_id=c.id, new_email=c.email).content
    )
    assert (
        "another account"
        in call(world, "update_email", customer_id=c.id, new_email=other.email).content
    )
    ok(world, "update_email", customer_id=c.id, new_email="New.Me@Example.org")
    assert world.customer(c.id).email == "new.me@example.org"


def test_a_transfer_goes_to_the_named_team_of_its_category(world):
    c = customer_in(world, "BHD")
    verify(world, c)
    charge = charge_of(world, c, "chargeback")
    assert "Greta Lind" in ok(
        world,
        "transfer_to_human",
        category="chargeback",
        summary="s",
        customer_id=c.id,
        reference=charge.id.lower(),
    )
    handoff = world.backoffice.handoffs[-1]
    assert (handoff.category, handoff.customer_id, handoff.reference) == (
        "chargeback",
        c.id,
        charge.id,
    )
