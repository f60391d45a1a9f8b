"""Composing recipes into tasks: identity variants (email / member number and date of birth /
a wrong date of birth first), scenarios, gold writes and the smoke split.

Each recipe needs a member in a given situation (a world *profile*); the identity variant picks
which of that profile's members it is, so variants differ in name, currency and amounts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evals.domains.membership.population import MEMBERS_PER_PROFILE, PROFILES, build_world
from evals.domains.membership.tasks.recipes import COMPOUNDS, SINGLES, WORLD_SEED, Ctx, Recipe
from evals.domains.membership.world import Member
from evals.engine.composition import (
    ACCEPT_REFUSAL_OR_TRANSFER,
    IN_ORDER,
    Built,
    Row,
    by_compound,
    by_profile,
    compose,
    identity_scenario,
    recipe_rows,
    slip,
    wrong_dob,
)
from evals.engine.task import Scenario, Task

VARIANTS = ("email", "number-dob", "wrong-dob-first")
COMPOUND_VARIANTS = ("email", "wrong-dob-first")
SMOKE = {
    "upgrade-premium/email",
    "freeze-two-months/number-dob",
    "refuse-refund-checkins-not-entitlement/email",
    "refund-duplicate-dues/wrong-dob-first",
    "dispute-late-fee/email",
}


def _scenario(m: Member, requests: list[dict[str, Any]], variant: str, ordered: bool) -> Scenario:
    gives = "email" if variant == "email" else "number"
    wrong = wrong_dob(m.date_of_birth) if variant == "wrong-dob-first" else ""
    identity = {
        "first_name": m.first_name,
        "last_name": m.last_name,
        "email": m.email,
        "member_number": m.id,
        "dob": m.date_of_birth,
        "gives": gives,
        "wrong_dob": wrong,
    }
    return identity_scenario(
        requests=requests,
        describe=describe,
        identity=identity,
        known=f"You are {m.first_name} {m.last_name}, member number {m.id}, born {m.date_of_birth}.",
        gives_email=gives == "email",
        ordered=ordered,
        in_order=IN_ORDER,
        slipped=slip("your date of birth", wrong),
        closing=ACCEPT_REFUSAL_OR_TRANSFER,
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


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    world = build_world(WORLD_SEED)
    members = by_profile(list(world.tables["members"].values()), PROFILES, MEMBERS_PER_PROFILE)

    def make(k: int, row: Row[str, Recipe], v_index: int, variant: str) -> Built:
        member = members[row.key][v_index % MEMBERS_PER_PROFILE]
        ctx = Ctx(world, member)
        return Built(
            [r(ctx) for r in row.recipes],
            lambda requests: _scenario(member, requests, variant, row.ordered),
            WORLD_SEED,
        )

    variants = by_compound(VARIANTS, COMPOUND_VARIANTS)
    rows = recipe_rows(SINGLES, COMPOUNDS)
    return compose("membership", rows, variants=variants, make=make, smoke=SMOKE)
