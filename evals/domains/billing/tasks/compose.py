"""Composing recipes into tasks: identity variants (email / full name and billing postcode /
a wrong postcode first), scenarios, gold writes and the smoke split.

Each recipe names the currency of the customer each variant talks to (or the sandbox
accounts), so variants differ in name, currency, decimals and amounts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evals.domains.billing.tasks.recipes import COMPOUNDS, SINGLES, WHY, WORLD_SEED, Ctx, Recipe
from evals.domains.billing.world import BillingWorld, Customer, build_world
from evals.engine.composition import (
    ACCEPT_REFUSAL_OR_TRANSFER,
    Built,
    Row,
    by_compound,
    compose,
    identity_scenario,
    recipe_rows,
    slip,
)
from evals.engine.task import Scenario, Task

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
    wrong = wrong_postcode(c.postcode) if variant == "wrong-postcode-first" else ""
    identity = {
        "first_name": c.first_name,
        "last_name": c.last_name,
        "email": c.email,
        "postcode": c.postcode,
        "gives": gives,
        "wrong_postcode": wrong,
    }
    return identity_scenario(
        requests=requests,
        describe=describe,
        identity=identity,
        known=(
            f"You are {c.first_name} {c.last_name}; the billing postcode of your cards is "
            f"{c.postcode}."
        ),
        gives_email=gives == "email",
        ordered=ordered,
        in_order="Ask for these in this order. ",
        slipped=slip("your postcode", wrong),
        closing=ACCEPT_REFUSAL_OR_TRANSFER,
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

    def make(k: int, row: Row[tuple[str, ...], Recipe], v_index: int, variant: str) -> Built:
        currencies = row.key
        pool = pools[currencies[v_index % len(currencies)]]
        pick = v_index if currencies == ("sandbox",) else k + v_index
        customer = pool[pick % len(pool)]
        parts = [r(Ctx(world, customer, pool[(pick + 1) % len(pool)])) for r in row.recipes]
        return Built(
            parts, lambda requests: _scenario(customer, requests, variant, row.ordered), WORLD_SEED
        )

    variants = by_compound(VARIANTS, COMPOUND_VARIANTS)
    rows = recipe_rows(SINGLES, COMPOUNDS)
    return compose("billing", rows, variants=variants, make=make, smoke=SMOKE)
