"""Each rule of the billing policy blocks its violation, and the right write goes through."""

import pytest

from evals.domains.billing.rules import check_rules
from evals.domains.billing.world import Rehearsal
from tests.evals_billing.conftest import charge_of, customer_in


def codes(world, tool, **args):
    return [v.code for v in check_rules(world, tool, args)]


def refund(charge, amount, **over):
    args = {
        "charge_id": charge.id,
        "amount": amount,
        "currency": charge.currency,
        "mode": charge.mode,
        "approver": "Nadia Brooks",
        "reason": "r",
    }
    return {**args, **over}


def verified(world, customer):
    world.session.verified_customer_id = customer.id
    return customer


def rehearsed(world, charge, amount):
    from payments_sandbox.domain import Money

    value = Money.parse(amount, charge.currency)
    world.rehearsals.append(Rehearsal(charge.id, value.amount, value.currency, charge.mode))


def test_every_write_but_a_transfer_needs_a_verified_identity(world):
    c = customer_in(world, "EUR")
    charge = charge_of(world, c, "main")
    assert codes(world, "request_refund", **refund(charge, "1.00")) == ["identity_not_verified"]
    assert codes(world, "update_email", customer_id=c.id, new_email="a@b.cd") == [
        "identity_not_verified"
    ]
    assert codes(world, "transfer_to_human", category="fraud", summary="s") == []


@pytest.mark.parametrize(
    ("currency", "amount"), [("JPY", "3200"), ("EUR", "21.12"), ("KWD", "11.437")]
)
def test_a_rehearsed_partial_refund_to_its_approver_goes_through_in_any_decimals(
    world, currency, amount
):
    c = verified(world, customer_in(world, currency))
    charge = charge_of(world, c, "main")
    rehearsed(world, charge, amount)
    assert codes(world, "request_refund", **refund(charge, amount)) == []


def test_it_refuses_a_refund_not_rehearsed_in_this_conversation(world, billing):
    c = verified(world, customer_in(world, "EUR"))
    charge = charge_of(world, c, "main")
    assert codes(world, "request_refund", **refund(charge, "1.00")) == ["not_rehearsed"]
    rehearsed(world, charge, "1.00")
    # A rehearsal belongs to one conversation: a fresh copy of the world has none.
    fresh = billing.fresh_world(0)
    assert fresh.rehearsals == [] and world.copy().rehearsals == []


def test_it_forbids_another_customers_charge_and_details(world):
    c = verified(world, customer_in(world, "EUR", 0))
    other = customer_in(world, "EUR", 1)
    theirs = charge_of(world, other, "main")
    rehearsed(world, theirs, "1.00")
    assert codes(world, "request_refund", **refund(theirs, "1.00")) == ["other_customer"]
    assert codes(world, "update_email", customer_id=other.id, new_email="a@b.cd") == [
        "other_customer"
    ]
    assert codes(world, "update_email", customer_id=c.id, new_email="a@b.cd") == []


def test_it_forbids_a_refund_past_the_dispute_window(world):
    c = verified(world, customer_in(world, "USD"))
    old = charge_of(world, c, "old")
    rehearsed(world, old, "10.00")
    assert old.days_ago > 120
    assert codes(world, "request_refund", **refund(old, "10.00")) == ["outside_dispute_window"]


def test_it_forbids_a_refund_of_a_charge_under_a_chargeback(world):
    c = verified(world, customer_in(world, "BHD"))
    charge = charge_of(world, c, "chargeback")
    rehearsed(world, charge, "1.000")
    assert codes(world, "request_refund", **refund(charge, "1.000")) == ["chargeback_filed"]


def test_a_repeated_request_creates_no_second_refund(world):
    c = verified(world, customer_in(world, "JPY"))
    pending = charge_of(world, c, "pending")
    rehearsed(world, pending, "100")
    assert "duplicate_request" in codes(world, "request_refund", **refund(pending, "100"))
    charge = charge_of(world, c, "main")
    rehearsed(world, charge, "3200")
    assert codes(world, "request_refund", **refund(charge, "3200")) == []
    import json

    from evals.domains.billing.tools import TOOLS
    from evals.engine.messages import ToolCall

    TOOLS["request_refund"].invoke(
        world, ToolCall("c", "request_refund", json.dumps(refund(charge, "3200")))
    )
    assert "duplicate_request" in codes(world, "request_refund", **refund(charge, "3200"))


def test_sandbox_and_live_never_mix(world):
    live = verified(world, customer_in(world, "EUR"))
    charge = charge_of(world, live, "main")
    rehearsed(world, charge, "1.00")
    assert codes(world, "request_refund", **refund(charge, "1.00", mode="sandbox")) == [
        "mode_mismatch"
    ]
    test = verified(world, customer_in(world, "KWD", mode="sandbox"))
    theirs = charge_of(world, test, "main")
    rehearsed(world, theirs, "1.000")
    assert codes(world, "request_refund", **refund(theirs, "1.000", mode="live")) == [
        "mode_mismatch"
    ]
    assert codes(world, "request_refund", **refund(theirs, "1.000")) == []


def test_it_takes_the_money_rules_from_payments_sandbox(world):
    c = verified(world, customer_in(world, "EUR"))
    partly = charge_of(world, c, "partly")
    rehearsed(world, partly, "1.00")
    left = partly.amount - partly.refunded
    assert codes(world, "request_refund", **refund(partly, f"{left / 100:.2f}")) == []
    too_much = f"{(left + 1) / 100:.2f}"
    assert codes(world, "request_refund", **refund(partly, too_much)) == ["exceeds_refundable"]
    assert codes(world, "request_refund", **refund(partly, "1.00", currency="USD")) == [
        "currency_mismatch"
    ]
    assert codes(world, "request_refund", **refund(partly, "1.005")) == ["invalid_amount"]
    assert codes(world, "request_refund", **refund(partly, "0.00")) == ["amount_not_positive"]
    full = charge_of(world, c, "full")
    rehearsed(world, full, "1.00")
    assert set(codes(world, "request_refund", **refund(full, "1.00"))) == {
        "payment_not_refundable",
        "exceeds_refundable",
    }


def test_a_refund_above_the_desk_limit_goes_to_the_senior_approver(world):
    c = verified(world, customer_in(world, "USD"))
    big = charge_of(world, c, "big")
    amount = f"{big.amount / 100:.2f}"
    rehearsed(world, big, amount)
    assert codes(world, "request_refund", **refund(big, amount)) == ["wrong_approver"]
    assert codes(world, "request_refund", **refund(big, amount, approver="Tom Becker")) == []
