"""Deterministic policy checks run by the guard before every airline WRITE.

Money rules are not restated here: amounts, currencies and the refundable balance of a
reservation's payment come from payments_sandbox.domain (`Money`, `check_refund_request`),
the rulebook the backoffice's refund services enforce too. What this module adds is the
airline's fare rules: identity first, the verified customer's own reservations only, basic
economy never changes, the 24-hour window (or a flexible fare, or a flight the airline
cancelled) for a refund, the change fee and fare difference, the bag allowance and limit,
name corrections of at most 3 characters, and compensation only when the policy grants it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.domains.airline.world import (
    MAX_BAGS_PER_PASSENGER,
    MAX_NAME_CORRECTION,
    AirlineWorld,
    Reservation,
    bag_fee,
    certificate_due,
    change_fee,
    fare_difference,
    money_text,
    name_distance,
    passenger_share,
    refundable,
    within_24_hours,
)
from evals.engine.messages import Violation
from evals.engine.policy.verified import verified_first
from evals.engine.world import World
from payments_sandbox.domain import (
    PENDING_REFUND_STATES,
    AmountError,
    CurrencyError,
    Money,
    PaymentStatus,
    RefundableFacts,
    RefundState,
    check_refund_request,
    payment_status_after_refunds,
)

_RESERVATION_TOOLS = {
    "change_flight",
    "cancel_reservation",
    "add_checked_bags",
    "correct_passenger_name",
    "add_passenger",
    "remove_passenger",
    "issue_compensation",
}


def refundable_facts(world: AirlineWorld, res: Reservation) -> RefundableFacts:
    """The reservation's payment as payments_sandbox.domain sees it."""
    captured = Money(res.paid, res.currency)
    refunded = Money(res.refunded, res.currency)
    pending = sum(
        r.amount
        for r in world.backoffice.refund_requests
        if r.reference.startswith(f"{res.id}/") and RefundState(r.state) in PENDING_REFUND_STATES
    )
    return RefundableFacts(
        captured=captured,
        refunded=refunded,
        pending=Money(pending, res.currency),
        payment_status=payment_status_after_refunds(captured, refunded).value
        if res.paid
        else PaymentStatus.PENDING.value,
    )


def parse_amount(args: Mapping[str, Any], key: str, currency: str) -> Money:
    """`args[key]` as Money in `currency` (raises AmountError/CurrencyError)."""
    return Money.parse(str(args.get(key, "")), currency)


@verified_first(
    "Verify the customer first (booking reference and last name, or the email "
    "address of their account)."
)
def check_rules(world: World, tool: str, args: Mapping[str, Any], verified: str) -> list[Violation]:
    assert isinstance(world, AirlineWorld)
    res = world.tables["reservations"].get(str(args.get("booking_ref", "")).strip().upper())
    if res is None:
        return []  # the tool itself answers "no such reservation"
    if res.customer_id != verified:
        return [
            Violation("other_customer", "You may only act on the verified customer's reservations.")
        ]
    if tool not in _RESERVATION_TOOLS:
        return []
    return _CHECKS[tool](world, res, args)


def _amount_violation(
    given: Mapping[str, Any], key: str, res: Reservation, due: int, what: str
) -> list[Violation]:
    try:
        amount = parse_amount(given, key, str(given.get("currency", res.currency)))
    except (AmountError, CurrencyError) as exc:
        return [Violation("invalid_amount", str(exc))]
    if amount.currency != res.currency:
        return [
            Violation(
                "currency",
                f"Reservation {res.id} was paid in {res.currency}; {what} is in {res.currency}, "
                f"not {amount.currency}.",
            )
        ]
    if amount.amount != due:
        return [
            Violation(
                "amount",
                f"The {what} for {res.id} is {money_text(due, res.currency)} {res.currency}, "
                f"not {amount.to_decimal_string()}.",
            )
        ]
    return []


def _not_refundable(world: AirlineWorld, res: Reservation) -> list[Violation]:
    if refundable(world, res):
        return []
    return [
        Violation(
            "non_refundable",
            f"Reservation {res.id} was booked at {res.booked_at}, more than 24 hours ago, on a "
            f"{res.fare} fare: outside the 24-hour window only flexible fares, or flights the "
            "airline cancelled, are refunded.",
        )
    ]


def _status(res: Reservation, *allowed: str) -> list[Violation]:
    if res.status in allowed:
        return []
    return [Violation("status", f"Reservation {res.id} is {res.status}.")]


def _change(world: AirlineWorld, res: Reservation, args: Mapping[str, Any]) -> list[Violation]:
    found = _status(res, "confirmed")
    if res.fare == "basic":
        found.append(
            Violation(
                "basic_economy", f"Reservation {res.id} is basic economy: it cannot be changed."
            )
        )
        return found
    new = world.tables["flights"].get(str(args.get("new_flight_id", "")).strip().upper())
    if new is None:
        return found
    old = world.flight(res.flight_id)
    if (new.origin, new.destination) != (old.origin, old.destination):
        found.append(
            Violation("route", "A change keeps the route; only the date or flight changes.")
        )
        return found
    if new.status != "scheduled":
        found.append(Violation("flight_status", f"Flight {new.id} is {new.status}."))
    due = change_fee(res) + fare_difference(world, res, new)
    found += _amount_violation(args, "amount", res, due, "change fee and fare difference")
    return found


def _cancel(world: AirlineWorld, res: Reservation, args: Mapping[str, Any]) -> list[Violation]:
    found = _status(res, "confirmed")
    found += _not_refundable(world, res)
    if found:
        return found
    facts = refundable_facts(world, res)
    due = facts.captured.amount - facts.refunded.amount - facts.pending.amount
    found += _amount_violation(args, "refund_amount", res, due, "full refund")
    if not found:
        money = parse_amount(args, "refund_amount", res.currency)
        found += [Violation(v.code, v.message) for v in check_refund_request(facts, money)]
    return found


def _bags(world: AirlineWorld, res: Reservation, args: Mapping[str, Any]) -> list[Violation]:
    found = _status(res, "confirmed")
    count = args.get("count", 0)
    if not isinstance(count, int) or count < 1:
        return [*found, Violation("count", "Add at least one bag.")]
    limit = MAX_BAGS_PER_PASSENGER * len(res.passengers)
    if res.checked_bags + count > limit:
        found.append(
            Violation(
                "bag_limit",
                f"At most {MAX_BAGS_PER_PASSENGER} checked bags per passenger: reservation "
                f"{res.id} has {res.checked_bags} of {limit}.",
            )
        )
        return found
    customer = world.customer(res.customer_id)
    found += _amount_violation(args, "fee", res, bag_fee(customer, res, count), "bag fee")
    return found


def _name(world: AirlineWorld, res: Reservation, args: Mapping[str, Any]) -> list[Violation]:
    found = _status(res, "confirmed")
    pax = next((p for p in res.passengers if p.id == args.get("passenger_id")), None)
    if pax is None:
        return found
    old = f"{pax.first_name} {pax.last_name}"
    new = f"{str(args.get('first_name', '')).strip()} {str(args.get('last_name', '')).strip()}"
    if name_distance(old, new) > MAX_NAME_CORRECTION:
        found.append(
            Violation(
                "name_change",
                f"{old!r} to {new!r} changes more than {MAX_NAME_CORRECTION} characters: a "
                "ticket cannot be reissued to another person.",
            )
        )
    return found


def _add(world: AirlineWorld, res: Reservation, args: Mapping[str, Any]) -> list[Violation]:
    found = _status(res, "confirmed")
    if not within_24_hours(res):
        found.append(
            Violation(
                "add_passenger_window",
                f"Reservation {res.id} was booked at {res.booked_at}: after 24 hours, passengers "
                "cannot be added to an existing reservation.",
            )
        )
        return found
    fare = world.flight(res.flight_id).price(res.cabin, res.currency)
    found += _amount_violation(args, "amount", res, fare, "fare for one passenger")
    return found


def _remove(world: AirlineWorld, res: Reservation, args: Mapping[str, Any]) -> list[Violation]:
    found = _status(res, "confirmed")
    if len(res.passengers) < 2:
        found.append(
            Violation("last_passenger", "The last passenger cannot be removed; cancel instead.")
        )
    found += _not_refundable(world, res)
    if found:
        return found
    found += _amount_violation(
        args, "refund_amount", res, passenger_share(res), "passenger's refund"
    )
    if not found:
        money = parse_amount(args, "refund_amount", res.currency)
        facts = refundable_facts(world, res)
        found += [Violation(v.code, v.message) for v in check_refund_request(facts, money)]
    return found


def _compensation(
    world: AirlineWorld, res: Reservation, args: Mapping[str, Any]
) -> list[Violation]:
    flight = world.flight(res.flight_id)
    due = certificate_due(flight, len(res.passengers), res.currency)
    if res.certificates:
        return [Violation("already_compensated", f"Reservation {res.id} was already compensated.")]
    if not due:
        why = (
            f"the cause was {flight.cause}, which the airline does not control"
            if flight.cause and flight.cause not in ("technical", "crew", "operational")
            else f"the delay was {flight.delay_minutes} minutes, under 3 hours"
        )
        return [
            Violation("no_compensation", f"No compensation is due for flight {flight.id}: {why}.")
        ]
    return _amount_violation(args, "amount", res, due, "compensation certificate")


_CHECKS = {
    "change_flight": _change,
    "cancel_reservation": _cancel,
    "add_checked_bags": _bags,
    "correct_passenger_name": _name,
    "add_passenger": _add,
    "remove_passenger": _remove,
    "issue_compensation": _compensation,
}
