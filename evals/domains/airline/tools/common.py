"""What the airline tools share: the record views they return and their argument checks."""

from __future__ import annotations

from typing import Any, Literal

from evals.domains.airline.world import (
    CITIES,
    AirlineWorld,
    Flight,
    Reservation,
    bag_allowance,
    hours_since_booking,
    money_text,
    refundable,
)
from evals.engine.errors import ToolError
from payments_sandbox.domain import AmountError, CurrencyError, Money, RefundState

HandoffCategory = Literal["dispute", "exception", "other"]


def money_arg(value: str, currency: str) -> Money:
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


def require_confirmed(res: Reservation) -> None:
    if res.status != "confirmed":
        raise ToolError(f"Reservation {res.id} is {res.status}; only confirmed ones can change.")
