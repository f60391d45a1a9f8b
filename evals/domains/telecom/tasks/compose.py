"""Composing recipes into tasks: identity variants (email / phone number and date of birth /
a wrong date of birth first), the customer's scenario (what it knows and notices, never the
cause), gold writes, the customer's own writes and the user-side assertions, and the smoke
split."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from evals.domains.telecom.tasks.recipes import COMPOUNDS, SINGLES, Ctx, Part, Recipe
from evals.domains.telecom.world import Customer, TelecomWorld, build_world, customer_index
from evals.engine.task import Scenario, Task, kind_of

VARIANTS = ("email", "phone-dob", "wrong-dob-first")
SMOKE = {
    "restore-service-unpaid/email",
    "roaming-abroad/phone-dob",
    "refuse-roaming-basic/email",
    "puk-unlock/wrong-dob-first",
    "fraud-review/email",
}


def wrong_dob(dob: str) -> str:
    """A plausible slip: day and month swapped, or the year off by one."""
    year, month, day = dob.split("-")
    if int(day) <= 12 and day != month:
        return f"{year}-{day}-{month}"
    return f"{int(year) + 1}-{month}-{day}"


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
    identity = {
        "first_name": c.first_name,
        "last_name": c.last_name,
        "email": c.email,
        "phone_number": c.phone_number,
        "dob": c.date_of_birth,
        "gives": gives,
        "wrong_dob": wrong_dob(c.date_of_birth) if variant == "wrong-dob-first" else "",
    }
    known = (
        f"You are {c.first_name} {c.last_name}, phone number {c.phone_number}, born "
        f"{c.date_of_birth}."
    )
    if gives == "email":
        known += f" Your email is {c.email}."
    instructions = "Ask for these in this order; the second needs the first. " if ordered else ""
    if variant == "wrong-dob-first":
        instructions += (
            f"At first you give your date of birth as {identity['wrong_dob']} by mistake. "
        )
    instructions += (
        "You hold your phone: check on it only what the agent asks you to check and report what "
        "you see; change a setting on it only when the agent asks you to. Accept a refusal if "
        "the agent explains the policy; accept a transfer to a human."
    )
    return Scenario(
        reason="You want to " + "; then ".join(describe(r) for r in requests) + ".",
        known_info=known,
        unknown_info=""
        if gives == "email"
        else "You do not remember which email your account uses.",
        instructions=instructions,
        data={"identity": identity, "requests": requests, "ordered": ordered},
    )


def _task(
    n: int, name: str, variant: str, c: Customer, seed: int, parts: list[Part], ordered: bool
) -> Task:
    requests = [p.request for p in parts]
    gold = tuple(g for p in parts for g in p.gold)
    handoff = next(
        (str(g.arguments["category"]) for g in gold if g.name == "transfer_to_human"), ""
    )
    refused = any(p.refused for p in parts)
    return Task(
        id=f"telecom-{n:03d}-{name}-{variant}",
        domain="telecom",
        kind=kind_of(refused=refused, gold=gold, handoff=handoff),
        scenario=_scenario(c, requests, variant, ordered),
        gold=gold,
        world_seed=seed,
        handoff_category=handoff,
        communicate=tuple(x for p in parts for x in p.communicate),
        intents=tuple(r["intent"] for r in requests),
        user_gold=tuple(g for p in parts for g in p.user_gold),
        assertions=tuple(a for p in parts for a in p.assertions),
        required_reads=tuple(r for p in parts for r in p.reads),
    )


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    recipes: list[tuple[str, str, tuple[Recipe, ...], bool]] = [
        (name, profile, parts, False) for name, (profile, parts) in SINGLES.items()
    ] + [(name, profile, parts, ordered) for name, (profile, parts, ordered) in COMPOUNDS.items()]
    tasks: list[Task] = []
    n = 0
    for name, profile, recipe_parts, ordered in recipes:
        for v_index, variant in enumerate(VARIANTS):
            index = customer_index(profile, v_index)
            seed = index + 1
            world = build_world(seed)
            assert isinstance(world, TelecomWorld)
            customer = list(world.tables["customers"].values())[index]
            ctx = Ctx(world, customer, v_index)
            task = _task(n, name, variant, customer, seed, [r(ctx) for r in recipe_parts], ordered)
            if f"{name}/{variant}" in SMOKE:
                task = replace(task, splits=(*task.splits, "smoke"))
            tasks.append(task)
            n += 1
    return tuple(tasks)
