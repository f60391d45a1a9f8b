"""Composing recipes into tasks: compounds, the order-dependent gift-card chain, identity
variants, scenarios, gold writes and the smoke split."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evals.domains.retail.tasks.recipes import (
    COMPOUNDS,
    PARTS,
    SINGLES,
    WORLD_SEED,
    customer_orders,
    item_view,
    upgrade_for,
)
from evals.domains.retail.world import Customer, Order, RetailWorld, build_world
from evals.engine.composition import Part, compose_task, wants, with_split
from evals.engine.task import GoldCall, Scenario, Task


def _gift_card_chain(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> list[Part] | None:
    """Return one item to the gift card, then pay an exchange's price difference with it:
    only in this order does the gift card cover the difference."""
    order = o["recent"]
    if len(order.items) < 2:
        return None
    give_back, upgrade_item = order.items[0], order.items[1]
    up = upgrade_for(w, upgrade_item)
    if up is None or c.gift_card_balance >= up[2] or give_back.price + c.gift_card_balance < up[2]:
        return None
    new_id, option, _ = up
    first = Part(
        {
            "intent": "return",
            "order_id": order.id,
            "items": [item_view(give_back)],
            "refund_to": "gift_card",
        },
        [
            GoldCall(
                "return_delivered_items",
                {"order_id": order.id, "item_ids": [give_back.item_id], "refund_to": "gift_card"},
            )
        ],
        [],
    )
    second = Part(
        {
            "intent": "exchange",
            "order_id": order.id,
            "items": [item_view(upgrade_item)],
            "new_options": [option],
            "payment": "gift_card",
        },
        [
            GoldCall(
                "exchange_delivered_items",
                {
                    "order_id": order.id,
                    "item_ids": [upgrade_item.item_id],
                    "new_item_ids": [new_id],
                    "payment": "gift_card",
                },
            )
        ],
        [],
    )
    return [first, second]


VARIANTS = ("email", "name-zip", "order-unknown")


def _unique_items(w: RetailWorld, c: Customer, requests: list[dict[str, Any]]) -> bool:
    """Whether every request's items identify its order among the customer's orders."""
    for req in requests:
        if "order_id" not in req:
            continue
        names = {i["name"] for i in req.get("items", ())}
        holders = {o.id for o in w.orders_of(c.id) for i in o.items if i.name in names}
        if holders != {req["order_id"]}:
            return False
    return True


def _scenario(c: Customer, requests: list[dict[str, Any]], variant: str, ordered: bool) -> Scenario:
    gives = "email" if variant == "email" else "name_zip"
    order_known = variant != "order-unknown"
    identity = {
        "first_name": c.first_name,
        "last_name": c.last_name,
        "zip": c.address.zip,
        "email": c.email,
        "gives": gives,
    }
    reason = wants(requests, lambda r: _describe(r, order_known))
    if not order_known:
        # A customer without its order number knows its orders by what was in them.
        requests = [{k: x for k, x in r.items() if k != "order_id"} for r in requests]
    known = f"You are {c.first_name} {c.last_name}, zip code {c.address.zip}."
    if gives == "email":
        known += f" Your email is {c.email}."
    return Scenario(
        reason=reason,
        known_info=known,
        unknown_info=""
        if gives == "email"
        else "You do not remember the email address of your account.",
        instructions=(
            "Ask for these in this order; the second depends on the first. " if ordered else ""
        )
        + "Accept a refusal if the agent explains the policy.",
        data={
            "identity": identity,
            "requests": requests,
            "order_known": order_known,
            "ordered": ordered,
        },
    )


def _describe(r: dict[str, Any], order_known: bool) -> str:
    items = " and ".join(f"{i['name']} ({i['option']})" for i in r.get("items", ()))
    where = (
        f"order {r['order_id']}"
        if order_known and "order_id" in r
        else f"the order with the {items}"
    )
    return {
        "cancel": f"cancel {where} because it is {r.get('reason')}",
        "return": f"return the {items} from {where}, refund to {str(r.get('refund_to')).replace('_', ' ')}",
        "exchange": f"exchange the {items} from {where} for the {', '.join(r.get('new_options', ()))} one",
        "order_address": f"ship {where} to {r['address']['line1']}, {r['address']['city']}, {r['address']['zip']}"
        if "address" in r
        else "",
        "default_address": f"change your default address to {r['address']['line1']}, {r['address']['city']}, "
        f"{r['address']['zip']}"
        if "address" in r
        else "",
        "damaged": f"get a refund of ${r.get('amount')} for the damaged {items} from {where}",
        "dispute": f"dispute a double charge on {where}",
        "price_adjustment": f"get a price adjustment on {where} because the price dropped",
        "status": f"know how much was refunded on {where}",
    }[r["intent"]]


def _task(
    n: int, name: str, variant: str, c: Customer, parts: list[Part], ordered: bool = False
) -> Task:
    return compose_task(
        domain="retail",
        n=n,
        name=name,
        variant=variant,
        parts=parts,
        scenario=lambda requests: _scenario(c, requests, variant, ordered),
        world_seed=WORLD_SEED,
    )


SMOKE = {
    "cancel/email",
    "return-one/email",
    "exchange/name-zip",
    "refuse-cancel-delivered/email",
    "dispute/email",
}


@lru_cache(maxsize=1)
def generate_tasks() -> tuple[Task, ...]:
    world = build_world(WORLD_SEED)
    customers = list(world.tables["customers"].values())
    tasks: list[Task] = []
    recipes: list[tuple[str, tuple[str, ...]]] = [(k, (k,)) for k in SINGLES] + list(
        COMPOUNDS.items()
    )
    n = 0
    for r_index, (name, parts_names) in enumerate(recipes):
        for v_index, variant in enumerate(VARIANTS):
            start = r_index * len(VARIANTS) + v_index
            for offset in range(len(customers)):
                c = customers[(start + offset) % len(customers)]
                orders = customer_orders(world, c)
                parts = [PARTS[p](world, c, orders, r_index + v_index) for p in parts_names]
                # Without an order id the items must point at one order of this customer.
                if variant != "order-unknown" or _unique_items(
                    world, c, [p.request for p in parts]
                ):
                    break
            else:
                continue
            task = _task(n, name, variant, c, parts)
            if f"{name}/{variant}" in SMOKE:
                task = with_split(task, "smoke")
            tasks.append(task)
            n += 1
    for c in customers:
        chain = _gift_card_chain(world, c, customer_orders(world, c), n)
        if chain is not None:
            for variant in VARIANTS[:2]:
                tasks.append(
                    _task(n, "return-then-exchange-gift-card", variant, c, chain, ordered=True)
                )
                n += 1
    return tuple(tasks)
