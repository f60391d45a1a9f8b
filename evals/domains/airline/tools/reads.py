"""The airline READ tools: identity and lookups. Docstrings are written for the model."""

from __future__ import annotations

from typing import Any

from evals.domains.airline.tools.common import flight_view, reservation_view
from evals.domains.airline.world import (
    CITIES,
    MAX_BAGS_PER_PASSENGER,
    AirlineWorld,
    Customer,
    bag_allowance,
    bag_fee,
    change_fee,
    fare_difference,
    money_text,
)
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.tools import ToolKind, tool

# -- identity -----------------------------------------------------------------------------


@tool(kind=ToolKind.READ)
def find_reservation(world: AirlineWorld, booking_ref: str, last_name: str) -> dict[str, Any]:
    """Verify the customer by a booking reference and the last name of a passenger on it (or
    of the account holder). Returns the customer id. Do this (or find_customer_by_email)
    before anything else.

    Args:
        booking_ref: The six-character booking reference, e.g. "QX7K2P".
        last_name: The last name the customer gives, e.g. "Tanaka".
    """
    res = world.reservation(booking_ref)
    owner = world.customer(res.customer_id)
    names = {p.last_name.lower() for p in res.passengers} | {owner.last_name.lower()}
    if last_name.strip().lower() not in names:
        raise ToolError("No reservation matches that booking reference and last name.")
    world.session.verified_customer_id = owner.id
    return {"customer_id": owner.id, "booking_ref": res.id}


def _trips(world: AirlineWorld, c: Customer) -> dict[str, Any]:
    """The email lookup's answer: the customer and their reservations by route and date, so
    the agent can tell which trip a customer without its booking reference means."""
    return {
        "customer_id": c.id,
        "name": f"{c.first_name} {c.last_name}",
        "reservations": [
            {
                "booking_ref": r.id,
                "from": CITIES[world.flight(r.flight_id).origin].name,
                "to": CITIES[world.flight(r.flight_id).destination].name,
                "date": world.flight(r.flight_id).date,
                "status": r.status,
            }
            for r in world.reservations_of(c.id)
        ],
    }


find_customer_by_email = email_lookup(
    """Verify the customer by the email address of their account. Returns the customer id and
    their reservations (booking reference, route, date, status) so you can tell which trip
    they mean.

    Args:
        email: The email address the customer gave, e.g. "ava.adler0@example.com".
    """,
    answer=_trips,
)


# -- reads --------------------------------------------------------------------------------


@tool(kind=ToolKind.READ)
def get_reservation(world: AirlineWorld, booking_ref: str) -> dict[str, Any]:
    """A reservation in full: status, flight (route, date, status, delay minutes and cause),
    cabin and fare (basic, standard, flex), passengers with their ids, when it was booked and
    whether that is within 24 hours, whether it is refundable now, the original payment
    method and its currency, amounts paid, refunded and asked back in refund requests still
    waiting for approval, checked bags and the free bag
    allowance, compensation already issued.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
    """
    return reservation_view(world, world.reservation(booking_ref))


@tool(kind=ToolKind.READ)
def search_flights(world: AirlineWorld, booking_ref: str, date: str) -> list[dict[str, Any]]:
    """Flights on the reservation's route on another date, each with its price per passenger
    in the reservation's cabin and currency. Use it before a flight change.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        date: The wanted date written YYYY-MM-DD, e.g. "2026-03-14".
    """
    res = world.reservation(booking_ref)
    old = world.flight(res.flight_id)
    found = [
        flight_view(f, res.cabin, res.currency)
        for f in world.tables["flights"].values()
        if (f.origin, f.destination, f.date) == (old.origin, old.destination, date.strip())
    ]
    if not found:
        raise ToolError(f"No flight from {old.origin} to {old.destination} on {date!r}.")
    return found


@tool(kind=ToolKind.READ)
def quote_change(world: AirlineWorld, booking_ref: str, new_flight_id: str) -> dict[str, Any]:
    """What moving the reservation to another flight costs: the change fee (standard fares;
    none on flexible fares) plus the fare difference for all passengers when the new flight
    costs more, charged to the original payment method. Basic economy cannot be changed.
    Changes nothing.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        new_flight_id: The flight id from search_flights, e.g. "AU101-2026-03-14".
    """
    res = world.reservation(booking_ref)
    new = world.flight(new_flight_id)
    if res.fare == "basic":
        raise ToolError(f"Reservation {res.id} is basic economy: it cannot be changed.")
    fee, diff = change_fee(res), fare_difference(world, res, new)
    cur = res.currency
    return {
        "booking_ref": res.id,
        "new_flight_id": new.id,
        "change_fee": money_text(fee, cur),
        "fare_difference": money_text(diff, cur),
        "total": money_text(fee + diff, cur),
        "currency": cur,
    }


@tool(kind=ToolKind.READ)
def quote_bags(world: AirlineWorld, booking_ref: str, count: int) -> dict[str, Any]:
    """What adding `count` checked bags to the reservation costs: bags within the free
    allowance (by cabin, fare and the account's tier) are free, the others pay the bag fee.
    Changes nothing.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        count: Number of checked bags to add, e.g. 1.
    """
    res = world.reservation(booking_ref)
    if count < 1:
        raise ToolError("count must be at least 1.")
    customer = world.customer(res.customer_id)
    return {
        "booking_ref": res.id,
        "checked_bags": res.checked_bags,
        "free_bag_allowance": bag_allowance(customer, res),
        "max_checked_bags": MAX_BAGS_PER_PASSENGER * len(res.passengers),
        "count": count,
        "fee": money_text(bag_fee(customer, res, count), res.currency),
        "currency": res.currency,
    }


@tool(kind=ToolKind.READ)
def get_flight_status(world: AirlineWorld, flight_id: str) -> dict[str, Any]:
    """A flight's status: scheduled, delayed, cancelled or landed, the delay in minutes and
    its cause (technical, crew, operational, weather, air traffic control).

    Args:
        flight_id: The flight id, e.g. "AU101-2026-03-14".
    """
    return flight_view(world.flight(flight_id))
