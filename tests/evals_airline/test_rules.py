"""Each rule of the airline guard blocks its violation and lets the right write through; money
is judged by payments_sandbox.domain (the same Money and refund rules as the backoffice)."""

import pytest

from evals.domains.airline import rules
from evals.domains.airline.rules import check_rules
from evals.domains.airline.tasks import WORLD_SEED
from evals.domains.airline.world import (
    AirlineWorld,
    bag_fee,
    certificate_due,
    change_fee,
    fare_difference,
    in_currency,
    money_text,
)
from tests.evals_airline.conftest import customer_of


@pytest.fixture
def world(airline) -> AirlineWorld:
    return airline.fresh_world(WORLD_SEED)


def codes(world, tool, **args):
    return [v.code for v in check_rules(world, tool, args)]


def as_owner(world, profile, index=0):
    customer, res = customer_of(world, profile, index)
    world.session.verified_customer_id = customer.id
    return customer, res


def test_the_money_rules_are_payments_sandbox_domains_not_restated():
    import payments_sandbox.domain as money

    assert rules.check_refund_request is money.check_refund_request
    assert rules.Money is money.Money


def test_nothing_is_written_before_the_customer_is_verified(world):
    _, res = customer_of(world, "fresh")
    assert codes(
        world, "cancel_reservation", booking_ref=res.id, refund_amount="1", currency="USD"
    ) == ["identity_not_verified"]
    # An unverified caller may still be handed to a human.
    assert codes(world, "transfer_to_human", category="other", summary="x") == []


def test_only_the_verified_customers_reservations(world):
    as_owner(world, "fresh")
    _, other = customer_of(world, "basic")
    assert codes(
        world, "add_checked_bags", booking_ref=other.id, count=1, fee="0", currency="EUR"
    ) == ["other_customer"]


def test_basic_economy_is_never_changed(world):
    _, res = as_owner(world, "basic")
    new = f"{world.flight(res.flight_id).number}-2026-03-24"
    assert "basic_economy" in codes(
        world,
        "change_flight",
        booking_ref=res.id,
        new_flight_id=new,
        amount="0",
        currency=res.currency,
    )


def test_a_change_costs_exactly_the_fee_plus_the_fare_difference(world):
    _, res = as_owner(world, "standard")
    flight = world.flight(res.flight_id)
    new = world.flight(f"{flight.number}-2026-03-{int(flight.date[8:10]) + 3:02d}")
    due = money_text(change_fee(res) + fare_difference(world, res, new), res.currency)
    args = {"booking_ref": res.id, "new_flight_id": new.id, "currency": res.currency}
    assert codes(world, "change_flight", amount=due, **args) == []
    assert codes(world, "change_flight", amount="0", **args) == ["amount"]
    wrong = "EUR" if res.currency != "EUR" else "USD"
    assert codes(world, "change_flight", **{**args, "currency": wrong}, amount="1.00") == [
        "currency"
    ]
    other_route = next(f for f in world.tables["flights"].values() if f.number != flight.number)
    assert codes(
        world, "change_flight", **{**args, "new_flight_id": other_route.id}, amount=due
    ) == ["route"]


def test_a_full_refund_only_within_24_hours_on_a_flexible_fare_or_a_cancelled_flight(world):
    _, fresh = as_owner(world, "fresh")
    amount = money_text(fresh.paid, fresh.currency)
    ok = {"booking_ref": fresh.id, "refund_amount": amount, "currency": fresh.currency}
    assert codes(world, "cancel_reservation", **ok) == []
    # Less than everything paid is not the full refund the policy grants.
    assert codes(world, "cancel_reservation", **{**ok, "refund_amount": "1.00"}) == ["amount"]
    _, old = as_owner(world, "standard")
    assert codes(
        world, "cancel_reservation", booking_ref=old.id, currency=old.currency,
        refund_amount=money_text(old.paid, old.currency),
    ) == ["non_refundable"]  # fmt: skip
    for profile in ("flex", "cancelled"):
        _, res = as_owner(world, profile)
        assert codes(
            world, "cancel_reservation", booking_ref=res.id, currency=res.currency,
            refund_amount=money_text(res.paid, res.currency),
        ) == [], profile  # fmt: skip


def test_a_refund_in_another_currency_than_the_payment_is_refused(world):
    _, res = as_owner(world, "fresh", 2)  # paid in JPY
    assert codes(
        world, "cancel_reservation", booking_ref=res.id, refund_amount="10.00", currency="USD"
    ) == ["currency"]
    assert codes(
        world, "cancel_reservation", booking_ref=res.id, refund_amount="10.5", currency="JPY"
    ) == ["invalid_amount"]


def test_a_pending_refund_counts_against_the_refundable_balance(world, airline):
    _, res = as_owner(world, "fresh")
    share = money_text(res.fare_paid // 2, res.currency)
    args = {
        "booking_ref": res.id,
        "passenger_id": "P2",
        "refund_amount": share,
        "currency": res.currency,
    }
    assert codes(world, "remove_passenger", **args) == []
    from evals.engine.world import RefundRequest

    world.backoffice.refund_requests.append(
        RefundRequest(f"{res.id}/cancel", res.paid, res.currency, "requested", "x")
    )
    # The whole payment is already asked back: the passenger's share exceeds what is left
    # (payments_sandbox.domain.check_refund_request's own rule and code).
    assert codes(world, "remove_passenger", **args) == ["exceeds_refundable"]


def test_bags_above_3_per_passenger_are_refused_and_the_fee_must_match(world):
    customer, res = as_owner(world, "basic")
    fee = money_text(bag_fee(customer, res, 1), res.currency)
    args = {"booking_ref": res.id, "currency": res.currency}
    assert codes(world, "add_checked_bags", count=1, fee=fee, **args) == []
    assert codes(world, "add_checked_bags", count=1, fee=money_text(0, res.currency), **args) == [
        "amount"
    ]
    assert codes(world, "add_checked_bags", count=4, fee=fee, **args) == ["bag_limit"]


def test_a_name_correction_changes_at_most_3_characters(world):
    customer, res = as_owner(world, "basic")
    args = {"booking_ref": res.id, "passenger_id": "P1"}
    assert codes(
        world, "correct_passenger_name", first_name=customer.first_name,
        last_name=customer.last_name, **args,
    ) == []  # fmt: skip
    assert codes(
        world, "correct_passenger_name", first_name="Margaret", last_name="Whitfield", **args
    ) == ["name_change"]


def test_a_passenger_is_removed_only_from_a_refundable_reservation_of_two_or_more(world):
    _, old = as_owner(world, "standard")
    share = money_text(old.fare_paid // 2, old.currency)
    assert "non_refundable" in codes(
        world, "remove_passenger", booking_ref=old.id, passenger_id="P2", refund_amount=share,
        currency=old.currency,
    )  # fmt: skip
    _, single = as_owner(world, "cancelled")  # refundable (cancelled flight), one passenger
    assert "last_passenger" in codes(
        world, "remove_passenger", booking_ref=single.id, passenger_id="P1",
        refund_amount=money_text(single.fare_paid, single.currency), currency=single.currency,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("delayed", []),
        ("cancelled", []),
        ("weather", ["no_compensation"]),
        ("short", ["no_compensation"]),
    ],
)
def test_compensation_only_when_the_policy_grants_it(world, profile, expected):
    _, res = as_owner(world, profile)
    flight = world.flight(res.flight_id)
    due = certificate_due(flight, len(res.passengers), res.currency) or in_currency(
        10000, res.currency
    )
    assert (
        codes(
            world, "issue_compensation", booking_ref=res.id,
            amount=money_text(due, res.currency), currency=res.currency,
        )
        == expected
    )  # fmt: skip


def test_compensation_of_another_amount_is_refused(world):
    _, res = as_owner(world, "delayed")
    assert codes(
        world, "issue_compensation", booking_ref=res.id,
        amount=money_text(in_currency(20000, res.currency) * 2, res.currency), currency=res.currency,
    ) == ["amount"]  # fmt: skip


@pytest.mark.parametrize(("hours_ago", "inside"), [(0, True), (23, True), (24, False), (25, False)])
def test_the_24_hour_window_ends_at_24_hours_after_booking(world, hours_ago, inside):
    from dataclasses import replace

    from evals.domains.airline.population import _stamp
    from evals.domains.airline.world import refundable, within_24_hours

    _, res = as_owner(world, "standard")
    moved = replace(res, booked_at=_stamp(hours_ago))
    world.put("reservations", res.id, moved)
    assert within_24_hours(moved) is inside
    assert refundable(world, moved) is inside  # a standard fare on a scheduled flight
    expected = [] if inside else ["non_refundable"]
    assert (
        codes(
            world, "cancel_reservation", booking_ref=res.id, currency=res.currency,
            refund_amount=money_text(res.paid, res.currency),
        )
        == expected
    )  # fmt: skip


def test_after_a_removal_the_full_refund_is_what_was_paid_less_the_refund_already_asked(world):
    import json

    from evals.domains.airline.tools import TOOLS
    from evals.engine.messages import ToolCall

    _, res = as_owner(world, "fresh")
    share = res.fare_paid // 2
    result, _ = TOOLS["remove_passenger"].invoke(
        world,
        ToolCall("c1", "remove_passenger", json.dumps({
            "booking_ref": res.id, "passenger_id": "P2",
            "refund_amount": money_text(share, res.currency), "currency": res.currency,
        })),
    )  # fmt: skip
    assert not result.error, result.content
    view, _ = TOOLS["get_reservation"].invoke(
        world, ToolCall("c2", "get_reservation", json.dumps({"booking_ref": res.id}))
    )
    assert json.loads(view.content)["refunds_requested"] == money_text(share, res.currency)
    args = {"booking_ref": res.id, "currency": res.currency}
    left = money_text(res.paid - share, res.currency)
    assert codes(world, "cancel_reservation", refund_amount=left, **args) == []
    everything = money_text(res.paid, res.currency)
    assert codes(world, "cancel_reservation", refund_amount=everything, **args) == ["amount"]
