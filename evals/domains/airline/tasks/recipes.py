"""The single requests an airline task is composed of, and which ones compound.

Each recipe returns a `Part` (request for the scenario, gold writes, communicate requirements,
required lookups) for a customer of the world; SINGLES and COMPOUNDS name the world profile
the customer is taken from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.domains.airline.world import (
    AirlineWorld,
    Customer,
    Reservation,
    bag_fee,
    certificate_due,
    change_fee,
    fare_difference,
    money_text,
    passenger_share,
)
from evals.engine.composition import TRANSFER_WORDS, Part, refusal
from evals.engine.task import GoldCall

WORLD_SEED = 4242
# The policy's reasons for a refusal, in its words in English and Chinese (policy.md,
# policy.zh.md).
REASON_BASIC = ("basic economy", "基本经济舱")
REASON_24H = ("24 hours", "24-hour", "24 小时", "24小时")
REASON_BAG_LIMIT = ("3 checked bags", "3 件托运行李", "3件托运行李")
REASON_TRANSFER = ("another person", "他人")
# After 24 hours no passenger is added: the reason names the existing reservation.
REASON_ADD_PASSENGER = ("existing reservation", "已有的预订", "已有预订")
REASON_WEATHER = ("weather", "天气")
REASON_SHORT_DELAY = ("3 hours", "3 小时", "3小时")
MONTH_WORDS = {"03": "March"}


class Ctx:
    """One customer's situation, as a recipe sees it: their profile reservation."""

    def __init__(self, world: AirlineWorld, customer: Customer, res: Reservation) -> None:
        self.world = world
        self.customer = customer
        self.res = res
        self.cur = res.currency
        self.ref = res.id
        self.flight = world.flight(res.flight_id)

    def money(self, minor: int) -> str:
        return money_text(minor, self.cur)

    def record(self) -> tuple[GoldCall, ...]:
        return (GoldCall("get_reservation", {"booking_ref": self.ref}),)

    def flight_record(self) -> tuple[GoldCall, ...]:
        return (
            GoldCall("get_reservation", {"booking_ref": self.ref}),
            GoldCall("get_flight_status", {"flight_id": self.flight.id}),
        )


def _date_words(date: str) -> str:
    return f"{MONTH_WORDS[date[5:7]]} {int(date[8:10])}"


# -- changes -------------------------------------------------------------------------------


def _change(c: Ctx, days: int) -> Part:
    date = f"2026-03-{int(c.flight.date[8:10]) + days:02d}"
    new = c.world.flight(f"{c.flight.number}-{date}")
    total = change_fee(c.res) + fare_difference(c.world, c.res, new)
    req = {"intent": "change", "date": date, "date_words": _date_words(date)}
    gold = [
        GoldCall(
            "change_flight",
            {
                "booking_ref": c.ref,
                "new_flight_id": new.id,
                "amount": c.money(total),
                "currency": c.cur,
            },
        )
    ]
    return Part(req, gold, [(c.money(total),)])


def change_three_days_later(c: Ctx) -> Part:
    return _change(c, 3)


def change_two_days_later(c: Ctx) -> Part:
    return _change(c, 2)


def refuse_change_basic(c: Ctx) -> Part:
    date = f"2026-03-{int(c.flight.date[8:10]) + 2:02d}"
    return refusal(
        {"intent": "change", "date": date, "date_words": _date_words(date)},
        REASON_BASIC,
        c.record(),
    )


# -- cancellations -------------------------------------------------------------------------


def cancel_refund(c: Ctx) -> Part:
    amount = c.money(c.res.paid - c.res.refunded)
    gold = [
        GoldCall(
            "cancel_reservation",
            {"booking_ref": c.ref, "refund_amount": amount, "currency": c.cur},
        )
    ]
    return Part({"intent": "cancel"}, gold, [(amount,)])


def refuse_cancel(c: Ctx) -> Part:
    return refusal({"intent": "cancel"}, REASON_24H, c.record())


# -- bags ----------------------------------------------------------------------------------


def _bags(c: Ctx, count: int) -> Part:
    fee = c.money(bag_fee(c.customer, c.res, count))
    gold = [
        GoldCall(
            "add_checked_bags",
            {"booking_ref": c.ref, "count": count, "fee": fee, "currency": c.cur},
        )
    ]
    return Part({"intent": "bags", "count": count}, gold, [(fee,)])


def add_one_bag(c: Ctx) -> Part:
    return _bags(c, 1)


def add_two_bags(c: Ctx) -> Part:
    return _bags(c, 2)


def refuse_four_bags(c: Ctx) -> Part:
    return refusal({"intent": "bags", "count": 4}, REASON_BAG_LIMIT, c.record())


# -- passengers ----------------------------------------------------------------------------


def correct_name(c: Ctx) -> Part:
    pax = c.res.passengers[0]
    right = c.customer.last_name
    req = {
        "intent": "name",
        "first": pax.first_name,
        "wrong": pax.last_name,
        "right": right,
    }
    gold = [
        GoldCall(
            "correct_passenger_name",
            {
                "booking_ref": c.ref,
                "passenger_id": pax.id,
                "first_name": pax.first_name,
                "last_name": right,
            },
        )
    ]
    return Part(req, gold, [(f"{pax.first_name} {right}",)])


def refuse_name_transfer(c: Ctx) -> Part:
    pax = c.res.passengers[-1]
    req = {
        "intent": "name",
        "first": pax.first_name,
        "wrong": pax.last_name,
        "new_first": "Margaret",
        "right": "Whitfield",
        "transfer": True,
    }
    return refusal(req, REASON_TRANSFER, c.record())


def remove_companion(c: Ctx) -> Part:
    pax = c.res.passengers[-1]
    amount = c.money(passenger_share(c.res))
    gold = [
        GoldCall(
            "remove_passenger",
            {
                "booking_ref": c.ref,
                "passenger_id": pax.id,
                "refund_amount": amount,
                "currency": c.cur,
            },
        )
    ]
    return Part(
        {"intent": "remove", "name": f"{pax.first_name} {pax.last_name}"}, gold, [(amount,)]
    )


def refuse_remove(c: Ctx) -> Part:
    pax = c.res.passengers[-1]
    return refusal(
        {"intent": "remove", "name": f"{pax.first_name} {pax.last_name}"}, REASON_24H, c.record()
    )


def add_passenger(c: Ctx) -> Part:
    fare = c.money(c.flight.price(c.res.cabin, c.cur))
    name = f"Grace {c.customer.last_name}"
    gold = [
        GoldCall(
            "add_passenger",
            {
                "booking_ref": c.ref,
                "first_name": "Grace",
                "last_name": c.customer.last_name,
                "amount": fare,
                "currency": c.cur,
            },
        )
    ]
    return Part({"intent": "new_passenger", "name": name}, gold, [(fare,)])


def refuse_add_passenger(c: Ctx) -> Part:
    return refusal(
        {"intent": "new_passenger", "name": f"Grace {c.customer.last_name}"},
        REASON_ADD_PASSENGER,
        c.record(),
    )


# -- compensation --------------------------------------------------------------------------


def compensation(c: Ctx) -> Part:
    amount = c.money(certificate_due(c.flight, len(c.res.passengers), c.cur))
    what = "cancelled" if c.flight.status == "cancelled" else "delay"
    gold = [
        GoldCall("issue_compensation", {"booking_ref": c.ref, "amount": amount, "currency": c.cur})
    ]
    return Part({"intent": "compensation", "what": what}, gold, [(amount,)])


def refuse_compensation_weather(c: Ctx) -> Part:
    return refusal({"intent": "compensation", "what": "delay"}, REASON_WEATHER, c.flight_record())


def refuse_compensation_short(c: Ctx) -> Part:
    return refusal(
        {"intent": "compensation", "what": "delay"}, REASON_SHORT_DELAY, c.flight_record()
    )


# -- hand-offs -----------------------------------------------------------------------------


def _handoff(c: Ctx, category: str, req: dict[str, Any]) -> Part:
    gold = [
        GoldCall("transfer_to_human", {"category": category, "summary": "", "booking_ref": c.ref})
    ]
    return Part(req, gold, [TRANSFER_WORDS])


def medical_exception(c: Ctx) -> Part:
    return _handoff(c, "exception", {"intent": "exception", "what": "medical"})


def bereavement_exception(c: Ctx) -> Part:
    return _handoff(c, "exception", {"intent": "exception", "what": "bereavement"})


def dispute_compensation(c: Ctx) -> Part:
    return _handoff(c, "dispute", {"intent": "dispute", "what": "compensation"})


Recipe = Callable[[Ctx], Part]
# name -> (profile, parts). Singles first, then compounds (a compound's parts in the order the
# customer asks them, and whether that order matters).
SINGLES: dict[str, tuple[str, tuple[Recipe, ...]]] = {
    "change-standard-fare": ("standard", (change_three_days_later,)),
    "change-flexible-fare": ("flex", (change_two_days_later,)),
    "refuse-change-basic-economy": ("basic", (refuse_change_basic,)),
    "cancel-within-24-hours": ("fresh", (cancel_refund,)),
    "cancel-flexible-fare": ("flex", (cancel_refund,)),
    "refuse-cancel-after-24-hours": ("standard", (refuse_cancel,)),
    "add-paid-bag": ("basic", (add_one_bag,)),
    "add-bags-within-allowance": ("standard", (add_two_bags,)),
    "refuse-bags-over-limit": ("basic", (refuse_four_bags,)),
    "correct-name": ("basic", (correct_name,)),
    "refuse-name-transfer": ("standard", (refuse_name_transfer,)),
    "remove-passenger-within-24-hours": ("fresh", (remove_companion,)),
    "refuse-remove-passenger-after-24-hours": ("standard", (refuse_remove,)),
    "add-passenger-within-24-hours": ("fresh", (add_passenger,)),
    "refuse-add-passenger-after-24-hours": ("flex", (refuse_add_passenger,)),
    "compensation-long-delay": ("delayed", (compensation,)),
    "compensation-cancelled-flight": ("cancelled", (compensation,)),
    "compensation-delay-over-6-hours": ("very-late", (compensation,)),
    "refuse-compensation-weather": ("weather", (refuse_compensation_weather,)),
    "refuse-compensation-short-delay": ("short", (refuse_compensation_short,)),
    "handoff-medical-exception": ("standard", (medical_exception,)),
    "handoff-bereavement-exception": ("basic", (bereavement_exception,)),
    "dispute-compensation": ("weather", (dispute_compensation,)),
}
COMPOUNDS: dict[str, tuple[str, tuple[Recipe, ...], bool]] = {
    "add-bag+correct-name": ("basic", (add_one_bag, correct_name), False),
    "refuse-change-basic+add-bag": ("basic", (refuse_change_basic, add_one_bag), False),
    "remove-passenger-then-add-bag": ("fresh", (remove_companion, add_one_bag), True),
    "refuse-cancel+change": ("standard", (refuse_cancel, change_three_days_later), False),
    "change-flexible+add-bags": ("flex", (change_two_days_later, add_two_bags), False),
    "compensation+cancel-cancelled-flight": ("cancelled", (compensation, cancel_refund), False),
    "refuse-name-transfer+add-bags": ("standard", (refuse_name_transfer, add_two_bags), False),
}
