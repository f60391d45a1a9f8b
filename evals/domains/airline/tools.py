"""The airline tools the agent can call. Docstrings are written for the model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from evals.domains.airline.world import (
    CITIES,
    MAX_BAGS_PER_PASSENGER,
    ROSTER,
    AirlineWorld,
    Certificate,
    Charge,
    Customer,
    Flight,
    Passenger,
    Reservation,
    bag_allowance,
    bag_fee,
    certificate_due,
    change_fee,
    fare_difference,
    hours_since_booking,
    money_text,
    passenger_share,
    refundable,
    within_24_hours,
)
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.tools import Confirm, ToolKind, ToolSet, tool
from evals.engine.world import Handoff, RefundRequest
from payments_sandbox.domain import AmountError, CurrencyError, Money, RefundState

HandoffCategory = Literal["dispute", "exception", "other"]


def _money(value: str, currency: str) -> Money:
    try:
        return Money.parse(value, currency)
    except (AmountError, CurrencyError) as exc:
        raise ToolError(str(exc)) from None


def flight_view(f: Flight, cabin: str = "", currency: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {
        "flight_id": f.id,
        "flight_number": f.number,
        "from": f"{CITIES[f.origin].name} ({f.origin})",
        "to": f"{CITIES[f.destination].name} ({f.destination})",
        "date": f.date,
        "departs": f.departs,
        "status": f.status,
        "delay_minutes": f.delay_minutes,
        "delay_cause": f.cause,
    }
    if cabin and currency:
        out["price_per_passenger"] = money_text(f.price(cabin, currency), currency)
        out["currency"] = currency
    return out


def reservation_view(world: AirlineWorld, res: Reservation) -> dict[str, Any]:
    customer = world.customer(res.customer_id)
    pm = next(p for p in customer.payment_methods if p.id == res.payment_method_id)
    cur = res.currency
    hours = hours_since_booking(res)
    return {
        "booking_ref": res.id,
        "status": res.status,
        "flight": flight_view(world.flight(res.flight_id), res.cabin, cur),
        "cabin": res.cabin,
        "fare": res.fare,
        "passengers": [
            {"passenger_id": p.id, "first_name": p.first_name, "last_name": p.last_name}
            for p in res.passengers
        ],
        "booked_at": res.booked_at,
        "hours_since_booking": round(hours, 1),
        "within_24_hours": hours < 24,
        "refundable_now": refundable(world, res),
        "payment_method": {"id": pm.id, "label": pm.label, "currency": pm.currency},
        "currency": cur,
        "paid": money_text(res.paid, cur),
        "refunded": money_text(res.refunded, cur),
        "refunds_requested": money_text(
            sum(
                r.amount
                for r in world.backoffice.refund_requests
                if r.reference.startswith(f"{res.id}/") and r.state == RefundState.REQUESTED.value
            ),
            cur,
        ),
        "charges": [{"kind": c.kind, "amount": money_text(c.amount, cur)} for c in res.charges],
        "checked_bags": res.checked_bags,
        "free_bag_allowance": bag_allowance(customer, res),
        "account_tier": customer.tier,
        "compensation_issued": list(res.certificates),
    }


def _confirmed(res: Reservation) -> None:
    if res.status != "confirmed":
        raise ToolError(f"Reservation {res.id} is {res.status}; only confirmed ones can change.")


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


# -- writes -------------------------------------------------------------------------------


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("change", "改签"), keys=("new_flight_id", "amount")),
)
def change_flight(
    world: AirlineWorld, booking_ref: str, new_flight_id: str, amount: str, currency: str
) -> dict[str, Any]:
    """Move the reservation to another flight on the same route. The change fee plus the fare
    difference (quote_change) is charged to the original payment method. Not for basic
    economy. Requires the customer's explicit confirmation of the flight and the amount.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        new_flight_id: The new flight id, e.g. "AU101-2026-03-14".
        amount: The total from quote_change as a decimal string in the reservation's
            currency, e.g. "75.00" ("0.00" when nothing is due; whole numbers for JPY).
        currency: The reservation's currency code, e.g. "USD".
    """
    res = world.reservation(booking_ref)
    _confirmed(res)
    if res.fare == "basic":
        raise ToolError(f"Reservation {res.id} is basic economy: it cannot be changed.")
    new = world.flight(new_flight_id)
    old = world.flight(res.flight_id)
    if (new.origin, new.destination) != (old.origin, old.destination) or new.id == old.id:
        raise ToolError(f"Flight {new.id} is not another flight on this reservation's route.")
    given = _money(amount, currency)
    fee, diff = change_fee(res), fare_difference(world, res, new)
    if given.currency != res.currency or given.amount != fee + diff:
        raise ToolError(
            f"The change costs {money_text(fee + diff, res.currency)} {res.currency}; quote it "
            "with quote_change."
        )
    charges = res.charges
    if fee:
        charges += (Charge("change_fee", fee),)
    if diff:
        charges += (Charge("fare_difference", diff),)
    world.put("reservations", res.id, replace(res, flight_id=new.id, charges=charges))
    return {
        "booking_ref": res.id,
        "flight_id": new.id,
        "charged": money_text(fee + diff, res.currency),
        "currency": res.currency,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("cancel", "取消"), keys=("booking_ref", "refund_amount")),
)
def cancel_reservation(
    world: AirlineWorld, booking_ref: str, refund_amount: str, currency: str
) -> dict[str, Any]:
    """Cancel the reservation with a full refund of what was paid, to the original payment
    method in its currency. Only when it is refundable (within 24 hours of booking, a
    flexible fare, or a flight the airline cancelled). Requires explicit confirmation of the
    booking reference and the refund amount.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        refund_amount: Everything paid and not yet refunded, as a decimal string in the
            payment method's currency, e.g. "612.40" (whole numbers for JPY).
        currency: The payment method's currency code, e.g. "JPY".
    """
    res = world.reservation(booking_ref)
    _confirmed(res)
    if not refundable(world, res):
        raise ToolError(
            f"Reservation {res.id} is not refundable: booked more than 24 hours ago on a "
            f"{res.fare} fare."
        )
    value = _money(refund_amount, currency)
    world.backoffice.refund_requests.append(
        RefundRequest(
            f"{res.id}/cancel", value.amount, value.currency, RefundState.REQUESTED.value, "cancel"
        )
    )
    world.put("reservations", res.id, replace(res, status="cancelled"))
    return {
        "booking_ref": res.id,
        "status": "cancelled",
        "refund": value.to_decimal_string(),
        "currency": value.currency,
        "refund_to": res.payment_method_id,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("bag", "行李"), keys=("count", "fee")),
)
def add_checked_bags(
    world: AirlineWorld, booking_ref: str, count: int, fee: str, currency: str
) -> dict[str, Any]:
    """Add checked bags to the reservation. Bags within the free allowance are free; the
    others pay the bag fee (quote_bags), charged to the original payment method. At most 3
    checked bags per passenger. Requires explicit confirmation of the number and the fee.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        count: Number of bags to add, e.g. 1.
        fee: The fee from quote_bags as a decimal string, e.g. "35.00" ("0.00" if free).
        currency: The reservation's currency code, e.g. "EUR".
    """
    res = world.reservation(booking_ref)
    _confirmed(res)
    if count < 1:
        raise ToolError("count must be at least 1.")
    if res.checked_bags + count > MAX_BAGS_PER_PASSENGER * len(res.passengers):
        raise ToolError(f"At most {MAX_BAGS_PER_PASSENGER} checked bags per passenger.")
    given = _money(fee, currency)
    due = bag_fee(world.customer(res.customer_id), res, count)
    if given.currency != res.currency or given.amount != due:
        raise ToolError(f"The fee is {money_text(due, res.currency)} {res.currency}; quote it.")
    charges = res.charges + ((Charge("bag_fee", due),) if due else ())
    world.put(
        "reservations", res.id, replace(res, checked_bags=res.checked_bags + count, charges=charges)
    )
    return {
        "booking_ref": res.id,
        "checked_bags": res.checked_bags + count,
        "charged": money_text(due, res.currency),
        "currency": res.currency,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("name", "姓名"), keys=("first_name", "last_name")),
)
def correct_passenger_name(
    world: AirlineWorld, booking_ref: str, passenger_id: str, first_name: str, last_name: str
) -> dict[str, Any]:
    """Correct a misspelled passenger name (at most 3 characters changed in all). A ticket
    cannot be reissued to another person. Requires explicit confirmation of the new name.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        passenger_id: The passenger's id on the reservation, e.g. "P1".
        first_name: The corrected first name.
        last_name: The corrected last name.
    """
    res = world.reservation(booking_ref)
    _confirmed(res)
    if not first_name.strip() or not last_name.strip():
        raise ToolError("Both first_name and last_name are needed.")
    for p in res.passengers:
        if p.id == passenger_id:
            new = replace(p, first_name=first_name.strip(), last_name=last_name.strip())
            pax = tuple(new if x.id == p.id else x for x in res.passengers)
            world.put("reservations", res.id, replace(res, passengers=pax))
            return {
                "booking_ref": res.id,
                "passenger_id": p.id,
                "name": f"{new.first_name} {new.last_name}",
            }
    raise ToolError(f"Reservation {res.id} has no passenger {passenger_id!r}.")


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("add", "添加"), keys=("first_name", "last_name", "amount")),
)
def add_passenger(
    world: AirlineWorld,
    booking_ref: str,
    first_name: str,
    last_name: str,
    amount: str,
    currency: str,
) -> dict[str, Any]:
    """Add a passenger to the reservation, only within 24 hours of booking; the flight's current
    fare for one passenger in the reservation's cabin is charged to the original payment
    method. Requires explicit confirmation of the name and the fare.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        first_name: The new passenger's first name, as in the passport.
        last_name: The new passenger's last name, as in the passport.
        amount: The fare for one passenger (price_per_passenger in get_reservation), e.g.
            "412.00".
        currency: The reservation's currency code, e.g. "USD".
    """
    res = world.reservation(booking_ref)
    _confirmed(res)
    if not first_name.strip() or not last_name.strip():
        raise ToolError("Both first_name and last_name are needed.")
    if not within_24_hours(res):
        raise ToolError(
            f"Reservation {res.id} was booked more than 24 hours ago: passengers can no longer be "
            "added; a new passenger needs a new booking."
        )
    given = _money(amount, currency)
    fare = world.flight(res.flight_id).price(res.cabin, res.currency)
    if given.currency != res.currency or given.amount != fare:
        raise ToolError(f"The fare is {money_text(fare, res.currency)} {res.currency}.")
    pax = Passenger(f"P{len(res.passengers) + 1}", first_name.strip(), last_name.strip())
    world.put(
        "reservations",
        res.id,
        replace(
            res, passengers=(*res.passengers, pax), charges=(*res.charges, Charge("fare", fare))
        ),
    )
    return {
        "booking_ref": res.id,
        "passenger_id": pax.id,
        "name": f"{pax.first_name} {pax.last_name}",
        "charged": money_text(fare, res.currency),
        "currency": res.currency,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("remove", "移除"), keys=("refund_amount",)),
)
def remove_passenger(
    world: AirlineWorld, booking_ref: str, passenger_id: str, refund_amount: str, currency: str
) -> dict[str, Any]:
    """Remove one passenger from a reservation of two or more and refund their share of the
    fare to the original payment method. Only when the reservation is refundable (within 24
    hours of booking, a flexible fare, or a flight the airline cancelled). Requires explicit
    confirmation of the passenger and the refund.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        passenger_id: The passenger's id on the reservation, e.g. "P2".
        refund_amount: The passenger's share of the fare, as a decimal string, e.g. "406.00".
        currency: The payment method's currency code, e.g. "GBP".
    """
    res = world.reservation(booking_ref)
    _confirmed(res)
    if passenger_id not in {p.id for p in res.passengers}:
        raise ToolError(f"Reservation {res.id} has no passenger {passenger_id!r}.")
    if len(res.passengers) < 2:
        raise ToolError("The last passenger cannot be removed; cancel the reservation instead.")
    value = _money(refund_amount, currency)
    share = passenger_share(res)
    if value.currency != res.currency or value.amount != share:
        raise ToolError(
            f"A passenger's share of the fare is {money_text(share, res.currency)} {res.currency}."
        )
    world.backoffice.refund_requests.append(
        RefundRequest(
            f"{res.id}/{passenger_id}", value.amount, value.currency,
            RefundState.REQUESTED.value, "passenger removed",
        )
    )  # fmt: skip
    pax = tuple(p for p in res.passengers if p.id != passenger_id)
    world.put("reservations", res.id, replace(res, passengers=pax))
    return {
        "booking_ref": res.id,
        "removed": passenger_id,
        "refund": value.to_decimal_string(),
        "currency": value.currency,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("certificate", "compensation", "补偿", "旅行券"), keys=("amount",)),
)
def issue_compensation(
    world: AirlineWorld, booking_ref: str, amount: str, currency: str
) -> dict[str, Any]:
    """Issue a travel certificate as compensation for a delayed or cancelled flight, when the
    policy grants one (a cause the airline controls and a delay of 3 hours or more, or a
    cancellation), in the reservation's currency. Once per reservation. Requires explicit
    confirmation of the amount.

    Args:
        booking_ref: The booking reference, e.g. "QX7K2P".
        amount: The certificate's value for all passengers, as a decimal string, e.g. "200.00".
        currency: The reservation's currency code, e.g. "USD".
    """
    res = world.reservation(booking_ref)
    if res.certificates:
        raise ToolError(f"Reservation {res.id} was already compensated.")
    value = _money(amount, currency)
    due = certificate_due(world.flight(res.flight_id), len(res.passengers), res.currency)
    if not due:
        raise ToolError(f"No compensation is due on flight {res.flight_id}.")
    code = f"TC-{res.id}"
    world.put("certificates", code, Certificate(code, res.id, value.amount, value.currency))
    world.put("reservations", res.id, replace(res, certificates=(*res.certificates, code)))
    return {"certificate": code, "amount": value.to_decimal_string(), "currency": value.currency}


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human(
    world: AirlineWorld, category: HandoffCategory, summary: str, booking_ref: str = ""
) -> str:
    """Hand the conversation to a named human colleague: a customer disputing a fee or a
    compensation decision ("dispute"), a request for an exception the policy does not let
    you grant, such as a refund for a medical emergency or a bereavement ("exception"),
    anything else you cannot handle ("other"). The conversation ends after the transfer, so
    tell the customer in the same message.

    Args:
        category: "dispute", "exception" or "other".
        summary: Two sentences for the human: who, what they want, what you checked.
        booking_ref: The reservation concerned, if any.
    """
    ref = booking_ref.strip().upper()
    if ref and ref not in world.tables["reservations"]:
        raise ToolError(f"No reservation with booking reference {booking_ref!r}.")
    assignee = ROSTER[category]
    customer = (
        world.tables["reservations"][ref].customer_id if ref else world.session.verified_customer_id
    )
    world.backoffice.handoffs.append(Handoff(category, assignee, customer, ref, summary))
    return f"Transferred to {assignee}."


TOOLS = ToolSet(
    [
        find_reservation,
        find_customer_by_email,
        get_reservation,
        search_flights,
        quote_change,
        quote_bags,
        get_flight_status,
        change_flight,
        cancel_reservation,
        add_checked_bags,
        correct_passenger_name,
        add_passenger,
        remove_passenger,
        issue_compensation,
        transfer_to_human,
    ]
)
