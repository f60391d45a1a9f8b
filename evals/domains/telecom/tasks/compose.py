"""Composing recipes into tasks: identity variants (email / phone number and date of birth /
a wrong date of birth first), the customer's scenario (what it knows and notices, never the
cause), gold writes, the customer's own writes and the user-side assertions, and the smoke
split."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evals.domains.telecom.population import build_world, customer_index
from evals.domains.telecom.tasks.recipes import COMPOUNDS, SINGLES, Ctx, Recipe
from evals.domains.telecom.world import Customer, TelecomWorld
from evals.engine.composition import (
    IN_ORDER,
    Built,
    Row,
    by_compound,
    compose,
    identity_scenario,
    recipe_rows,
    slip,
    wrong_dob,
)
from evals.engine.task import Scenario, Task

VARIANTS = ("email", "phone-dob", "wrong-dob-first")
SMOKE = {
    "restore-service-unpaid/email",
    "roaming-abroad/phone-dob",
    "refuse-roaming-basic/email",
    "puk-unlock/wrong-dob-first",
    "fraud-review/email",
}


def describe(r: dict[str, Any]) -> str:
    intent = r["intent"]
    if intent == "no_service":
        text = "find out why your phone shows no service and get it working again"
        if r.get("pay_ok"):
            return text + "; if a bill is unpaid, you agree to pay it in full now with your card"
        return (
            text
            + "; you will not pay anything today (you get paid next week) and want the line back on now"
        )
    if intent == "no_data":
        return (
            "get mobile data working again: it stopped this week; if you need more data you "
            f"want the {r['gb']} GB top-up"
        )
    if intent == "no_data_abroad":
        return f"get mobile data working: you are travelling in {r['country']} and have no data"
    if intent == "app_offline":
        return f"get the {r['app']} app working: it says it is offline, although you are connected"
    if intent == "sim_locked":
        return (
            "unlock your phone: it asks for a PUK code after you typed a wrong PIN three times; "
            f"you want {r['new_pin']} as your new PIN"
        )
    if intent == "sim_broken":
        return "get your phone working again: it says 'no SIM' since it fell into water; you would accept an eSIM"
    if intent == "plan_change":
        return f"move your line to the {r['plan_name']} plan"
    if intent == "bill_payment":
        return f"pay your {r['period']} bill of {r['amount']} {r['currency']} now with your card"
    return f"dispute your {r['period']} bill of {r['amount']} {r['currency']}: you find it wrong and want a person to review it"


def _scenario(c: Customer, requests: list[dict[str, Any]], variant: str, ordered: bool) -> Scenario:
    gives = "email" if variant == "email" else "phone"
    wrong = wrong_dob(c.date_of_birth) if variant == "wrong-dob-first" else ""
    identity = {
        "first_name": c.first_name,
        "last_name": c.last_name,
        "email": c.email,
        "phone_number": c.phone_number,
        "dob": c.date_of_birth,
        "gives": gives,
        "wrong_dob": wrong,
    }
    return identity_scenario(
        requests=requests,
        describe=describe,
        identity=identity,
        known=(
            f"You are {c.first_name} {c.last_name}, phone number {c.phone_number}, born "
            f"{c.date_of_birth}."
        ),
        gives_email=gives == "email",
        ordered=ordered,
        in_order=IN_ORDER,
        slipped=slip("your date of birth", wrong),
        closing=(
            "You hold your phone: check on it only what the agent asks you to check and report "
            "what you see; change a setting on it only when the agent asks you to. Accept a "
            "refusal if the agent explains the policy; accept a transfer to a human."
        ),
    )


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    def make(k: int, row: Row[str, Recipe], v_index: int, variant: str) -> Built:
        """Each customer of a profile lives in a world of its own: its seed is its index + 1."""
        index = customer_index(row.key, v_index)
        world = build_world(index + 1)
        assert isinstance(world, TelecomWorld)
        customer = list(world.tables["customers"].values())[index]
        parts = [r(Ctx(world, customer, v_index)) for r in row.recipes]
        return Built(
            parts, lambda requests: _scenario(customer, requests, variant, row.ordered), index + 1
        )

    rows = recipe_rows(SINGLES, COMPOUNDS)
    return compose(
        "telecom", rows, variants=by_compound(VARIANTS, VARIANTS), make=make, smoke=SMOKE
    )
