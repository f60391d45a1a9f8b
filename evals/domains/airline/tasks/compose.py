"""Composing recipes into tasks: identity variants (booking reference and last name / email /
email without the booking reference), scenarios, gold writes and the smoke split.

Each recipe needs a customer in a given situation (a world *profile*); the identity variant
picks which of that profile's customers it is, so variants differ in name, route, currency
and amounts.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from typing import Any

from evals.domains.airline.tasks.recipes import (
    COMPOUNDS,
    SINGLES,
    WORLD_SEED,
    Ctx,
    Part,
    Recipe,
)
from evals.domains.airline.tools import TOOLS
from evals.domains.airline.world import (
    CITIES,
    CUSTOMERS_PER_PROFILE,
    PROFILES,
    AirlineWorld,
    Customer,
    build_world,
)
from evals.engine.messages import ToolCall
from evals.engine.task import Scenario, Task, kind_of

VARIANTS = ("ref-name", "email", "ref-unknown")
COMPOUND_VARIANTS = ("ref-name", "ref-unknown")
SMOKE = {
    "change-standard-fare/ref-name",
    "refuse-change-basic-economy/email",
    "cancel-within-24-hours/ref-unknown",
    "compensation-long-delay/ref-name",
    "handoff-medical-exception/email",
}


def _scenario(c: Ctx, requests: list[dict[str, Any]], variant: str, ordered: bool) -> Scenario:
    m: Customer = c.customer
    origin, dest = CITIES[c.flight.origin], CITIES[c.flight.destination]
    knows_ref = variant != "ref-unknown"
    identity = {
        "first_name": m.first_name,
        "last_name": m.last_name,
        "email": m.email,
        "booking_ref": c.ref if knows_ref else "",
        "gives": "ref" if variant == "ref-name" else "email",
    }
    trip = {
        "from": origin.name,
        "to": dest.name,
        "from_zh": origin.zh,
        "to_zh": dest.zh,
        "date": c.flight.date,
    }
    known = (
        f"You are {m.first_name} {m.last_name}; your email is {m.email}. Your trip is from "
        f"{origin.name} to {dest.name} on {c.flight.date}."
    )
    if knows_ref:
        known += f" Your booking reference is {c.ref}."
    instructions = "Ask for these in this order; the second needs the first. " if ordered else ""
    instructions += "Accept a refusal if the agent explains the rule; accept a transfer to a human."
    return Scenario(
        reason="You want to " + "; then ".join(describe(r) for r in requests) + ".",
        known_info=known,
        unknown_info="" if knows_ref else "You do not know your booking reference.",
        instructions=instructions,
        data={"identity": identity, "trip": trip, "requests": requests, "ordered": ordered},
    )


def describe(r: dict[str, Any]) -> str:
    intent = r["intent"]
    if intent == "change":
        return f"move your flight to {r['date_words']} ({r['date']}), same route"
    if intent == "cancel":
        return "cancel your reservation and get your money back"
    if intent == "bags":
        return f"add {r['count']} checked bag(s) to your reservation"
    if intent == "name":
        if r.get("transfer"):
            return (
                f"put your colleague {r['new_first']} {r['right']} on the ticket in place of "
                f"{r['first']} {r['wrong']}, who cannot travel"
            )
        return f"have the passenger name {r['first']} {r['wrong']} corrected to {r['first']} {r['right']}"
    if intent == "remove":
        return f"take {r['name']} off the reservation: they cannot come"
    if intent == "new_passenger":
        return f"add your sister {r['name']} as a passenger to this trip"
    if intent == "compensation":
        if r["what"] == "cancelled":
            return "get compensation because the airline cancelled your flight"
        return "get compensation because your flight arrived hours late"
    if intent == "exception" and r["what"] == "bereavement":
        return (
            "get a refund for the trip because your father died and you must stay for the "
            "funeral; you can send the death certificate"
        )
    if intent == "exception":
        return (
            "get a refund for the trip because you were just admitted to hospital and cannot "
            "travel; you can send a doctor's letter"
        )
    return (
        "dispute the decision that your late flight earns no compensation, and have a person "
        "review it"
    )


def _task(n: int, name: str, variant: str, c: Ctx, parts: list[Part], ordered: bool) -> Task:
    requests = [p.request for p in parts]
    gold = tuple(g for p in parts for g in p.gold)
    communicate = tuple(x for p in parts for x in p.communicate)
    handoff = next(
        (str(g.arguments["category"]) for g in gold if g.name == "transfer_to_human"), ""
    )
    refused = any(p.refused for p in parts)
    return Task(
        id=f"airline-{n:03d}-{name}-{variant}",
        domain="airline",
        kind=kind_of(refused=refused, gold=gold, handoff=handoff),
        scenario=_scenario(c, requests, variant, ordered),
        gold=gold,
        world_seed=WORLD_SEED,
        handoff_category=handoff,
        communicate=communicate,
        intents=tuple(r["intent"] for r in requests),
        required_reads=tuple(r for p in parts for r in p.reads),
    )


def _contexts(world: AirlineWorld) -> dict[str, list[Ctx]]:
    """Each profile's customers with their profile reservation (the first one they hold)."""
    customers = list(world.tables["customers"].values())
    out: dict[str, list[Ctx]] = {}
    for i, p in enumerate(PROFILES):
        group = customers[i * CUSTOMERS_PER_PROFILE : (i + 1) * CUSTOMERS_PER_PROFILE]
        out[p.name] = [Ctx(world, c, world.reservations_of(c.id)[0]) for c in group]
    return out


def _parts(ctx: Ctx, recipes: tuple[Recipe, ...]) -> list[Part]:
    """Each recipe on the world as the gold writes of the parts before it left it (a bag fee
    after a passenger was removed is the fee for the passengers who remain)."""
    world = ctx.world.copy()
    assert isinstance(world, AirlineWorld)
    world.session.verified_customer_id = ctx.customer.id
    parts = []
    for recipe in recipes:
        here = Ctx(world, ctx.customer, world.reservation(ctx.ref))
        part = recipe(here)
        parts.append(part)
        for call in part.gold:
            result, _ = TOOLS[call.name].invoke(
                world, ToolCall("gold", call.name, json.dumps(dict(call.arguments)))
            )
            assert not result.error, result.content
    return parts


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    world = build_world(WORLD_SEED)
    contexts = _contexts(world)
    recipes: list[tuple[str, str, tuple[Recipe, ...], bool, tuple[str, ...]]] = [
        (name, profile, parts, False, VARIANTS) for name, (profile, parts) in SINGLES.items()
    ] + [
        (name, profile, parts, ordered, COMPOUND_VARIANTS)
        for name, (profile, parts, ordered) in COMPOUNDS.items()
    ]
    tasks: list[Task] = []
    n = 0
    for name, profile, recipe_parts, ordered, variants in recipes:
        for v_index, variant in enumerate(variants):
            ctx = contexts[profile][v_index % CUSTOMERS_PER_PROFILE]
            task = _task(n, name, variant, ctx, _parts(ctx, recipe_parts), ordered)
            if f"{name}/{variant}" in SMOKE:
                task = replace(task, splits=(*task.splits, "smoke"))
            tasks.append(task)
            n += 1
    return tuple(tasks)
