"""The airline WRITE tools, each guarded by the rules. Docstrings are written for the model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evals.domains.airline.tools.common import HandoffCategory, money_arg, require_confirmed
from evals.domains.airline.world import (
    MAX_BAGS_PER_PASSENGER,
    ROSTER,
    AirlineWorld,
    Certificate,
    Charge,
    Passenger,
    bag_fee,
    certificate_due,
    change_fee,
    fare_difference,
    money_text,
    passenger_share,
    refundable,
    within_24_hours,
)
from evals.engine.errors import ToolError
from evals.engine.tools import Confirm, ToolKind, tool
from evals.engine.world import Handoff, RefundRequest
from payments_sandbox.domain import RefundState


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
    require_confirmed(res)
    if res.fare == "basic":
        raise ToolError(f"Reservation {res.id} is basic economy: it cannot be changed.")
    new = world.flight(new_flight_id)
    old = world.flight(res.flight_id)
    if (new.origin, new.destination) != (old.origin, old.destination) or new.id == old.id:
        raise ToolError(f"Flight {new.id} is not another flight on this reservation's route.")
    given = money_arg(amount, currency)
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
    require_confirmed(res)
    if not refundable(world, res):
        raise ToolError(
            f"Reservation {res.id} is not refundable: booked more than 24 hours ago on a "
            f"{res.fare} fare."
        )
    value = money_arg(refund_amount, currency)
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
    require_confirmed(res)
    if count < 1:
        raise ToolError("count must be at least 1.")
    if res.checked_bags + count > MAX_BAGS_PER_PASSENGER * len(res.passengers):
        raise ToolError(f"At most {MAX_BAGS_PER_PASSENGER} checked bags per passenger.")
    given = money_arg(fee, currency)
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
    require_confirmed(res)
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
    require_confirmed(res)
    if not first_name.strip() or not last_name.strip():
        raise ToolError("Both first_name and last_name are needed.")
    if not within_24_hours(res):
        raise ToolError(
            f"Reservation {res.id} was booked more than 24 hours ago: passengers can no longer be "
            "added; a new passenger needs a new booking."
        )
    given = money_arg(amount, currency)
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
    require_confirmed(res)
    if passenger_id not in {p.id for p in res.passengers}:
        raise ToolError(f"Reservation {res.id} has no passenger {passenger_id!r}.")
    if len(res.passengers) < 2:
        raise ToolError("The last passenger cannot be removed; cancel the reservation instead.")
    value = money_arg(refund_amount, currency)
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
    value = money_arg(amount, currency)
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
