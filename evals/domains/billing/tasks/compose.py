"""Composing recipes into tasks: identity variants (email / full name and billing postcode /
a wrong postcode first), scenarios, gold writes and the smoke split.

Each recipe names the currency of the customer each variant talks to (or the sandbox
accounts), so variants differ in name, currency, decimals and amounts.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from evals.domains.billing.tasks.recipes import (
    COMPOUNDS,
    SINGLES,
    WHY,
    WORLD_SEED,
    Ctx,
    Part,
    Recipe,
)
from evals.domains.billing.world import BillingWorld, Customer, build_world
from evals.engine.task import Scenario, Task, kind_of

VARIANTS = ("email", "name-postcode", "wrong-postcode-first")
COMPOUND_VARIANTS = ("email", "wrong-postcode-first")
SMOKE = {
    "refund-partial-two-decimals/email",
    "refund-partial-three-decimals/name-postcode",
    "refuse-above-refundable-balance/email",
    "handoff-chargeback-filed/email",
    "refund-then-repeat/wrong-postcode-first",
}


def wrong_postcode(postcode: str) -> str:
    """A plausible slip: two neighbouring digits swapped, or the last digit off by one."""
    for i in range(len(postcode) - 1):
        if postcode[i] != postcode[i + 1]:
            return postcode[:i] + postcode[i + 1] + postcode[i] + postcode[i + 2 :]
    return postcode[:-1] + str((int(postcode[-1]) + 1) % 10)


def describe(r: dict[str, Any]) -> str:
    if r["intent"] == "email":
        return f"change the email address on your account to {r['new_email']}"
    charge = (
        f"the charge of {r['amount']} {r['currency']} from {r['merchant']} on {r['date']} "
        f"(card ending {r['last4']})"
    )
    intent = r["intent"]
    if intent == "fraud":
        return f"report {charge}: you do not recognise it and fear your card was misused"
    if intent == "repeat":
        return (
            f"make sure the refund of {r['refund']} {r['currency']} on {charge} is really "
            "requested: ask for it once more"
        )
    cur = r.get("refund_currency", r["currency"])
    text = f"get {r['refund']} {cur} refunded of {charge}: {WHY[r['why']]}"
    if r.get("holder") == "partner":
        text += "; the card is your partner's, and you are asking on their behalf"
    if r.get("earlier"):
        text += "; you asked for this refund in an earlier contact and want it done"
    if r.get("bank"):
        text += "; you have also opened a dispute with your bank about it"
    return text


def _scenario(c: Customer, requests: list[dict[str, Any]], variant: str, ordered: bool) -> Scenario:
    gives = "email" if variant == "email" else "name"
    identity = {
        "first_name": c.first_name,
        "last_name": c.last_name,
        "email": c.email,
        "postcode": c.postcode,
        "gives": gives,
        "wrong_postcode": wrong_postcode(c.postcode) if variant == "wrong-postcode-first" else "",
    }
    known = (
        f"You are {c.first_name} {c.last_name}; the billing postcode of your cards is {c.postcode}."
    )
    if gives == "email":
        known += f" Your email is {c.email}."
    instructions = "Ask for these in this order. " if ordered else ""
    if variant == "wrong-postcode-first":
        instructions += (
            f"At first you give your postcode as {identity['wrong_postcode']} by mistake. "
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


def _task(n: int, name: str, variant: str, c: Customer, parts: list[Part], ordered: bool) -> Task:
    requests = [p.request for p in parts]
    gold = tuple(g for p in parts for g in p.gold)
    handoff = next(
        (str(g.arguments["category"]) for g in gold if g.name == "transfer_to_human"), ""
    )
    refused = any(p.refused for p in parts)
    return Task(
        id=f"billing-{n:03d}-{name}-{variant}",
        domain="billing",
        kind=kind_of(refused=refused, gold=gold, handoff=handoff),
        scenario=_scenario(c, requests, variant, ordered),
        gold=gold,
        world_seed=WORLD_SEED,
        handoff_category=handoff,
        communicate=tuple(x for p in parts for x in p.communicate),
        intents=tuple(r["intent"] for r in requests),
        required_reads=tuple(r for p in parts for r in p.reads),
    )


def customers_by_pool(world: BillingWorld) -> dict[str, list[Customer]]:
    """Live customers by currency, and the sandbox accounts, in the world's order."""
    pools: dict[str, list[Customer]] = {}
    for customer in world.tables["customers"].values():
        key = "sandbox" if customer.mode == "sandbox" else _currency(world, customer)
        pools.setdefault(key, []).append(customer)
    return pools


def _currency(world: BillingWorld, customer: Customer) -> str:
    return next(c.currency for c in world.charges_of(customer.id))


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    world = build_world(WORLD_SEED)
    pools = customers_by_pool(world)
    recipes: list[tuple[str, tuple[str, ...], tuple[Recipe, ...], bool, tuple[str, ...]]] = [
        (name, currencies, parts, False, VARIANTS) for name, (currencies, parts) in SINGLES.items()
    ] + [
        (name, currencies, parts, ordered, COMPOUND_VARIANTS)
        for name, (currencies, parts, ordered) in COMPOUNDS.items()
    ]
    tasks: list[Task] = []
    for k, (name, currencies, recipe_parts, ordered, variants) in enumerate(recipes):
        for v_index, variant in enumerate(variants):
            pool = pools[currencies[v_index % len(currencies)]]
            pick = v_index if currencies == ("sandbox",) else k + v_index
            customer = pool[pick % len(pool)]
            partner = pool[(pick + 1) % len(pool)]
            ctx = Ctx(world, customer, partner)
            n = len(tasks)
            task = _task(n, name, variant, customer, [r(ctx) for r in recipe_parts], ordered)
            if f"{name}/{variant}" in SMOKE:
                task = replace(task, splits=(*task.splits, "smoke"))
            tasks.append(task)
    return tuple(tasks)
