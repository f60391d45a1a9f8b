"""Composing recipes into tasks: identity variants (booking reference and last name / email /
email without the booking reference), scenarios, gold writes and the smoke split.

Each recipe needs a customer in a given situation (a world *profile*); the identity variant
picks which of that profile's customers it is, so variants differ in name, route, currency
and amounts.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from evals.domains.airline.population import CUSTOMERS_PER_PROFILE, PROFILES, build_world
from evals.domains.airline.tasks.recipes import COMPOUNDS, SINGLES, WORLD_SEED, Ctx, Recipe
from evals.domains.airline.tools import TOOLS
from evals.domains.airline.world import CITIES, AirlineWorld, Customer
from evals.engine.composition import (
    IN_ORDER,
    Built,
    Part,
    Row,
    by_compound,
    by_profile,
    compose,
    recipe_rows,
    wants,
)
from evals.engine.messages import ToolCall
from evals.engine.task import Scenario, Task

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
    instructions = IN_ORDER if ordered else ""
    instructions += "Accept a refusal if the agent explains the rule; accept a transfer to a human."
    return Scenario(
        reason=wants(requests, describe),
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


def _contexts(world: AirlineWorld) -> dict[str, list[Ctx]]:
    """Each profile's customers with their profile reservation (the first one they hold)."""
    groups = by_profile(list(world.tables["customers"].values()), PROFILES, CUSTOMERS_PER_PROFILE)
    return {
        name: [Ctx(world, c, world.reservations_of(c.id)[0]) for c in group]
        for name, group in groups.items()
    }


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

    def make(k: int, row: Row[str, Recipe], v_index: int, variant: str) -> Built:
        ctx = contexts[row.key][v_index % CUSTOMERS_PER_PROFILE]
        return Built(
            _parts(ctx, row.recipes),
            lambda requests: _scenario(ctx, requests, variant, row.ordered),
            WORLD_SEED,
        )

    variants = by_compound(VARIANTS, COMPOUND_VARIANTS)
    rows = recipe_rows(SINGLES, COMPOUNDS)
    return compose("airline", rows, variants=variants, make=make, smoke=SMOKE)
