"""Composing recipes into tasks: identity variants (email / member number and date of birth /
a wrong date of birth first), scenarios, gold writes and the smoke split.

Each recipe needs a member in a given situation (a world *profile*); the identity variant picks
which of that profile's members it is, so variants differ in name, currency and amounts.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from evals.domains.membership.population import MEMBERS_PER_PROFILE, PROFILES, build_world
from evals.domains.membership.tasks.recipes import (
    COMPOUNDS,
    SINGLES,
    WORLD_SEED,
    Ctx,
    Part,
    Recipe,
)
from evals.domains.membership.world import Member, MembershipWorld
from evals.engine.task import Scenario, Task, kind_of

VARIANTS = ("email", "number-dob", "wrong-dob-first")
COMPOUND_VARIANTS = ("email", "wrong-dob-first")
SMOKE = {
    "upgrade-premium/email",
    "freeze-two-months/number-dob",
    "refuse-refund-checkins-not-entitlement/email",
    "refund-duplicate-dues/wrong-dob-first",
    "dispute-late-fee/email",
}


def wrong_dob(dob: str) -> str:
    """A plausible slip: day and month swapped, or the year off by one when that is a no-op."""
    year, month, day = dob.split("-")
    if int(day) <= 12 and day != month:
        return f"{year}-{day}-{month}"
    return f"{int(year) + 1}-{month}-{day}"


def _scenario(m: Member, requests: list[dict[str, Any]], variant: str, ordered: bool) -> Scenario:
    gives = "email" if variant == "email" else "number"
    identity = {
        "first_name": m.first_name,
        "last_name": m.last_name,
        "email": m.email,
        "member_number": m.id,
        "dob": m.date_of_birth,
        "gives": gives,
        "wrong_dob": wrong_dob(m.date_of_birth) if variant == "wrong-dob-first" else "",
    }
    known = f"You are {m.first_name} {m.last_name}, member number {m.id}, born {m.date_of_birth}."
    if gives == "email":
        known += f" Your email is {m.email}."
    instructions = "Ask for these in this order; the second needs the first. " if ordered else ""
    if variant == "wrong-dob-first":
        instructions += (
            f"At first you give your date of birth as {identity['wrong_dob']} by mistake. "
        )
    instructions += (
        "Accept a refusal if the agent explains the policy; accept a transfer to a human."
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


def describe(r: dict[str, Any]) -> str:
    intent = r["intent"]
    if intent == "plan_change":
        return f"{r['direction']} your membership to the {r['plan_name']} plan"
    if intent == "freeze":
        return f"freeze your membership for {r['months']} month(s)"
    if intent == "unfreeze":
        return "unfreeze your membership: you are back"
    if intent == "cancel":
        return "cancel your membership" + (
            "; you accept a cancellation fee"
            if r["accept_fee"]
            else " but you refuse to pay any cancellation fee"
        )
    if intent == "waive":
        return f"get the late fee of {r['amount']} {r['currency']} on your {r['period']} invoice waived"
    if intent == "refund":
        what = {
            "duplicate": "your dues were charged twice",
            "class": "you were charged for a class drop-in",
            "dues": "you did not use the gym that month",
        }[r["what"]]
        text = (
            f"get a refund of {r['amount']} {r['currency']} on your {r['period']} invoice: {what}"
        )
        if r.get("claim") == "checkins":
            text += "; you believe your many studio-class check-ins show classes are part of your membership"
        return text
    if intent == "dispute":
        if r["what"] == "late_fee":
            return f"dispute the late fee of {r['amount']} {r['currency']} on your {r['period']} invoice"
        return (
            "dispute the early cancellation fee, which you find unfair, and have a person review it"
        )
    label = "guest passes" if r["kind"] == "guest_pass" else "personal-training sessions"
    return f"know how many {label} you have left"


def _task(n: int, name: str, variant: str, m: Member, parts: list[Part], ordered: bool) -> Task:
    requests = [p.request for p in parts]
    gold = tuple(g for p in parts for g in p.gold)
    communicate = tuple(x for p in parts for x in p.communicate)
    handoff = next(
        (str(g.arguments["category"]) for g in gold if g.name == "transfer_to_human"), ""
    )
    refused = any(p.refused for p in parts)
    return Task(
        id=f"membership-{n:03d}-{name}-{variant}",
        domain="membership",
        kind=kind_of(refused=refused, gold=gold, handoff=str(handoff)),
        scenario=_scenario(m, requests, variant, ordered),
        gold=gold,
        world_seed=WORLD_SEED,
        handoff_category=handoff,
        communicate=communicate,
        intents=tuple(r["intent"] for r in requests),
        required_reads=tuple(r for p in parts for r in p.reads),
    )


def _members_by_profile(world: MembershipWorld) -> dict[str, list[Member]]:
    members = list(world.tables["members"].values())
    return {
        p.name: members[i * MEMBERS_PER_PROFILE : (i + 1) * MEMBERS_PER_PROFILE]
        for i, p in enumerate(PROFILES)
    }


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    world = build_world(WORLD_SEED)
    by_profile = _members_by_profile(world)
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
            member = by_profile[profile][v_index % MEMBERS_PER_PROFILE]
            ctx = Ctx(world, member)
            task = _task(n, name, variant, member, [r(ctx) for r in recipe_parts], ordered)
            if f"{name}/{variant}" in SMOKE:
                task = replace(task, splits=(*task.splits, "smoke"))
            tasks.append(task)
            n += 1
    return tuple(tasks)
