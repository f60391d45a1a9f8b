"""The airline tools: schemas for the model, clear ToolErrors for malformed arguments, unknown
ids and wrong statuses, and the writes' effects (charges, refunds to the original payment
method in its currency, certificates)."""

from functools import partial

import pytest

from evals.domains.airline.tasks import WORLD_SEED
from evals.domains.airline.tools import TOOLS
from evals.domains.airline.world import (
    AirlineWorld,
    bag_allowance,
    certificate_due,
    in_currency,
    money_text,
)
from tests.evals_airline.conftest import customer_of
from tests.support import tool_kit


@pytest.fixture
def world(airline) -> AirlineWorld:
    return airline.fresh_world(WORLD_SEED)


call = partial(tool_kit.call, TOOLS)


ok = partial(tool_kit.ok, TOOLS)


err = partial(tool_kit.err, TOOLS)


def test_every_tool_has_a_schema_and_a_docstring_for_the_model():
    tool_kit.assert_documented_for_the_model(TOOLS)


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("get_reservation", "{not json", "not valid JSON"),
        ("get_reservation", "[1]", "must be a JSON object"),
        ("get_reservation", "{}", "missing required argument booking_ref"),
        ("get_reservation", '{"booking_ref": 5}', "must be a string"),
        ("get_reservation", '{"booking_ref": "AB", "x": 1}', "unexpected argument"),
        ("quote_bags", '{"booking_ref": "AB", "count": "2"}', "must be an integer"),
        ("transfer_to_human", '{"category": "vip", "summary": "x"}', "must be one of"),
    ],
)
def test_it_answers_malformed_arguments_with_a_tool_error(world, name, raw, message):
    tool_kit.assert_malformed_is_a_tool_error(TOOLS, world, name, raw, message)


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("get_reservation", {"booking_ref": "ZZZZZ9"}, "No reservation with booking reference"),
        ("get_flight_status", {"flight_id": "AU999-2026-03-01"}, "No flight"),
        ("find_customer_by_email", {"email": "nobody@example.com"}, "No customer with email"),
        (
            "transfer_to_human",
            {"category": "other", "summary": "x", "booking_ref": "ZZZZZ9"},
            "No reservation",
        ),
    ],
)
def test_unknown_ids_get_a_clear_tool_error(world, name, args, message):
    assert message in err(world, name, **args)


def test_a_reservation_is_found_by_its_reference_and_a_last_name_on_it_only(world):
    customer, res = customer_of(world, "standard")
    assert (
        ok(world, "find_reservation", booking_ref=res.id, last_name=customer.last_name)[
            "customer_id"
        ]
        == customer.id
    )
    assert world.session.verified_customer_id == customer.id
    fresh = type(world).__new__(type(world))
    fresh.__dict__.update(world.copy().__dict__)
    assert "No reservation matches" in err(
        fresh, "find_reservation", booking_ref=res.id, last_name="Nobody"
    )
    assert not fresh.session.verified_customer_id


def test_the_email_lookup_lists_the_customers_trips_by_route_and_date(world):
    customer, res = customer_of(world, "fresh")
    found = ok(world, "find_customer_by_email", email=customer.email.upper())
    assert len(found["reservations"]) == 2
    trip = next(r for r in found["reservations"] if r["booking_ref"] == res.id)
    assert trip["from"] and trip["to"] and trip["date"] == world.flight(res.flight_id).date


def test_basic_economy_cannot_be_quoted_or_changed(world):
    _, res = customer_of(world, "basic")
    other = f"{world.flight(res.flight_id).number}-2026-03-22"
    assert "basic economy" in err(world, "quote_change", booking_ref=res.id, new_flight_id=other)
    assert "basic economy" in err(
        world, "change_flight", booking_ref=res.id, new_flight_id=other, amount="0.00",
        currency=res.currency,
    )  # fmt: skip


def test_a_change_charges_the_fee_and_fare_difference_to_the_original_payment(world):
    _, res = customer_of(world, "standard", 1)
    flight = world.flight(res.flight_id)
    new_id = f"{flight.number}-2026-03-{int(flight.date[8:10]) + 3:02d}"
    quote = ok(world, "quote_change", booking_ref=res.id, new_flight_id=new_id)
    assert quote["change_fee"] == money_text(in_currency(7500, res.currency), res.currency)
    assert "The change costs" in err(
        world, "change_flight", booking_ref=res.id, new_flight_id=new_id, amount="1.00",
        currency=res.currency,
    )  # fmt: skip
    done = ok(
        world, "change_flight", booking_ref=res.id, new_flight_id=new_id, amount=quote["total"],
        currency=res.currency,
    )  # fmt: skip
    assert done["charged"] == quote["total"]
    assert world.reservation(res.id).flight_id == new_id


def test_a_change_to_another_route_is_refused(world):
    _, res = customer_of(world, "flex")
    other_route = next(
        f.id for f in world.tables["flights"].values()
        if f.number != world.flight(res.flight_id).number and f.status == "scheduled"
    )  # fmt: skip
    assert "not another flight on this reservation's route" in err(
        world, "change_flight", booking_ref=res.id, new_flight_id=other_route, amount="0.00",
        currency=res.currency,
    )  # fmt: skip


def test_a_cancellation_refunds_to_the_original_payment_method_in_its_currency(world):
    _, res = customer_of(world, "fresh", 2)  # a JPY payment: no decimals
    assert res.currency == "JPY"
    amount = money_text(res.paid, "JPY")
    assert "." not in amount
    assert "must be a whole number" in err(
        world,
        "cancel_reservation",
        booking_ref=res.id,
        refund_amount=amount + ".50",
        currency="JPY",
    )
    done = ok(world, "cancel_reservation", booking_ref=res.id, refund_amount=amount, currency="JPY")
    assert done["refund_to"] == res.payment_method_id
    request = world.backoffice.refund_requests[-1]
    assert (request.amount, request.currency, request.state) == (res.paid, "JPY", "requested")
    assert "is cancelled" in err(
        world, "cancel_reservation", booking_ref=res.id, refund_amount=amount, currency="JPY"
    )


def test_a_standard_fare_after_24_hours_is_not_refunded_by_the_tool_either(world):
    _, res = customer_of(world, "standard")
    assert "not refundable" in err(
        world, "cancel_reservation", booking_ref=res.id,
        refund_amount=money_text(res.paid, res.currency), currency=res.currency,
    )  # fmt: skip


def test_bags_within_the_allowance_are_free_and_the_limit_holds(world):
    customer, res = customer_of(world, "standard")
    assert bag_allowance(customer, res) == 4  # silver: (1 + 1) x 2 passengers
    assert ok(world, "quote_bags", booking_ref=res.id, count=2)["fee"] == money_text(
        0, res.currency
    )
    assert "At most 3 checked bags" in err(
        world, "add_checked_bags", booking_ref=res.id, count=7, fee="0.00", currency=res.currency
    )
    assert "count must be at least 1" in err(world, "quote_bags", booking_ref=res.id, count=0)


def test_a_paid_bag_is_charged(world):
    _, res = customer_of(world, "basic")
    fee = ok(world, "quote_bags", booking_ref=res.id, count=1)["fee"]
    assert fee == money_text(in_currency(3500, res.currency), res.currency)
    ok(world, "add_checked_bags", booking_ref=res.id, count=1, fee=fee, currency=res.currency)
    after = world.reservation(res.id)
    assert after.checked_bags == 1 and after.charges[-1].kind == "bag_fee"


def test_a_name_correction_needs_both_names_and_a_passenger_on_the_booking(world):
    _, res = customer_of(world, "basic")
    assert "Both first_name and last_name" in err(
        world, "correct_passenger_name", booking_ref=res.id, passenger_id="P1", first_name=" ",
        last_name="X",
    )  # fmt: skip
    assert "no passenger 'P9'" in err(
        world, "correct_passenger_name", booking_ref=res.id, passenger_id="P9", first_name="A",
        last_name="B",
    )  # fmt: skip


def test_removing_a_passenger_refunds_exactly_their_share(world):
    _, res = customer_of(world, "fresh")
    share = money_text(res.fare_paid // 2, res.currency)
    assert "share of the fare is" in err(
        world, "remove_passenger", booking_ref=res.id, passenger_id="P2", refund_amount="1.00",
        currency=res.currency,
    )  # fmt: skip
    ok(world, "remove_passenger", booking_ref=res.id, passenger_id="P2", refund_amount=share,
       currency=res.currency)  # fmt: skip
    assert [p.id for p in world.reservation(res.id).passengers] == ["P1"]
    assert "last passenger" in err(
        world, "remove_passenger", booking_ref=res.id, passenger_id="P1", refund_amount=share,
        currency=res.currency,
    )  # fmt: skip


def test_compensation_is_a_certificate_issued_once_and_never_for_weather(world):
    _, res = customer_of(world, "delayed")
    due = certificate_due(world.flight(res.flight_id), 2, res.currency)
    assert due == in_currency(10000, res.currency) * 2
    amount = money_text(due, res.currency)
    ok(world, "issue_compensation", booking_ref=res.id, amount=amount, currency=res.currency)
    assert world.reservation(res.id).certificates == (f"TC-{res.id}",)
    assert "already compensated" in err(
        world, "issue_compensation", booking_ref=res.id, amount=amount, currency=res.currency
    )
    _, rainy = customer_of(world, "weather")
    one = money_text(in_currency(10000, rainy.currency), rainy.currency)
    assert "No compensation is due" in err(
        world, "issue_compensation", booking_ref=rainy.id, amount=one, currency=rainy.currency
    )


def test_a_transfer_names_a_human_and_the_reservations_owner(world):
    customer, res = customer_of(world, "standard")
    text = ok(world, "transfer_to_human", category="exception", summary="x", booking_ref=res.id)
    assert "fare exceptions" in text
    handoff = world.backoffice.handoffs[-1]
    assert (handoff.category, handoff.customer_id, handoff.reference) == (
        "exception", customer.id, res.id,
    )  # fmt: skip
