"""Compositional task generator: recipes (intents, compounds, policy edge cases, refusals) ×
identity variants (email / name + zip / order id unknown), each with its gold writes.

The scenario's `data` is the customer's own structured instructions for the scripted user:
{"identity": {...}, "requests": [{"intent": ..., ...}], "order_known": bool}.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from evals.domains.retail.tools import money
from evals.domains.retail.world import Customer, Order, OrderItem, RetailWorld, build_world
from evals.engine.task import GoldCall, Scenario, Task, TaskKind

WORLD_SEED = 20250
REFUSAL_MARKERS = ("can't", "cannot", "unable", "not able", "无法", "不能")
NEW_ADDRESSES = [
    {"line1": "12 Harbor Street", "city": "Portland", "zip": "04101"},
    {"line1": "480 Sunset Avenue", "city": "Madison", "zip": "53703"},
    {"line1": "77 Quarry Road", "city": "Salem", "zip": "97301"},
    {"line1": "5 Orchard Lane", "city": "Fairview", "zip": "37062"},
]

Built = tuple[list[dict[str, Any]], list[GoldCall], TaskKind, str, list[tuple[str, ...]]]


def _orders(world: RetailWorld, c: Customer) -> dict[str, Order]:
    """The customer's orders by role: pending, processed, recent, older, old, cancelled."""
    roles = ["pending", "processed", "recent", "older", "old", "cancelled"]
    return dict(zip(roles, world.orders_of(c.id), strict=True))


def _item(i: OrderItem) -> dict[str, str]:
    return {"name": i.name, "option": i.option}


def _upgrade(world: RetailWorld, item: OrderItem) -> tuple[str, str, int] | None:
    """(new item id, option, price difference) of the next pricier available variant."""
    variants = world.product(item.product_id).variants
    for v in variants:
        if v.available and v.price > item.price:
            return v.item_id, v.option, v.price - item.price
    return None


def _sidegrade(world: RetailWorld, item: OrderItem) -> tuple[str, str]:
    for v in world.product(item.product_id).variants:
        if v.available and v.item_id != item.item_id:
            return v.item_id, v.option
    raise AssertionError("every product has several available variants")


# -- single requests ------------------------------------------------------------------------
# Each returns (request for the scenario, gold writes, communicate requirements).

Part = tuple[dict[str, Any], list[GoldCall], list[tuple[str, ...]]]


def cancel(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["pending"]
    reason = ["no longer needed", "ordered by mistake"][n % 2]
    req = {
        "intent": "cancel",
        "order_id": order.id,
        "items": [_item(i) for i in order.items],
        "reason": reason,
    }
    return req, [GoldCall("cancel_pending_order", {"order_id": order.id, "reason": reason})], []


def return_one(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    item = order.items[n % len(order.items)]
    refund_to = ["original_payment", "gift_card"][n % 2]
    req = {"intent": "return", "order_id": order.id, "items": [_item(item)], "refund_to": refund_to}
    gold = GoldCall(
        "return_delivered_items",
        {"order_id": order.id, "item_ids": [item.item_id], "refund_to": refund_to},
    )
    return req, [gold], []


def return_all(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["older"]
    refund_to = ["gift_card", "original_payment"][n % 2]
    req = {
        "intent": "return",
        "order_id": order.id,
        "items": [_item(i) for i in order.items],
        "refund_to": refund_to,
    }
    gold = GoldCall(
        "return_delivered_items",
        {
            "order_id": order.id,
            "item_ids": [i.item_id for i in order.items],
            "refund_to": refund_to,
        },
    )
    return req, [gold], []


def exchange(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    item = order.items[(n + 1) % len(order.items)]
    new_id, option = _sidegrade(w, item)
    req = {
        "intent": "exchange",
        "order_id": order.id,
        "items": [_item(item)],
        "new_options": [option],
        "payment": "original_payment",
    }
    gold = GoldCall(
        "exchange_delivered_items",
        {
            "order_id": order.id,
            "item_ids": [item.item_id],
            "new_item_ids": [new_id],
            "payment": "original_payment",
        },
    )
    return req, [gold], []


def order_address(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["pending"]
    addr = NEW_ADDRESSES[n % len(NEW_ADDRESSES)]
    req = {
        "intent": "order_address",
        "order_id": order.id,
        "items": [_item(i) for i in order.items],
        "address": addr,
    }
    return req, [GoldCall("modify_order_address", {"order_id": order.id, **addr})], []


def default_address(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    addr = NEW_ADDRESSES[(n + 1) % len(NEW_ADDRESSES)]
    req = {"intent": "default_address", "address": addr}
    return req, [GoldCall("modify_default_address", {"customer_id": c.id, **addr})], []


def damaged(
    w: RetailWorld, c: Customer, o: dict[str, Order], n: int, partial: bool = False
) -> Part:
    order = o["older"]
    item = order.items[n % len(order.items)]
    amount = money(item.price // 2 if partial else item.price)
    req = {"intent": "damaged", "order_id": order.id, "items": [_item(item)], "amount": amount}
    gold = GoldCall(
        "request_refund",
        {"order_id": order.id, "item_id": item.item_id, "amount": amount, "reason": "damaged"},
    )
    return req, [gold], [("approv", "审批")]


def damaged_partial(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    return damaged(w, c, o, n, partial=True)


def dispute(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["processed"]
    req = {"intent": "dispute", "order_id": order.id, "items": [_item(i) for i in order.items]}
    gold = GoldCall(
        "transfer_to_human", {"category": "dispute", "summary": "", "order_id": order.id}
    )
    return req, [gold], []


def price_adjustment(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    req = {
        "intent": "price_adjustment",
        "order_id": order.id,
        "items": [_item(i) for i in order.items],
    }
    gold = GoldCall(
        "transfer_to_human", {"category": "out_of_policy", "summary": "", "order_id": order.id}
    )
    return req, [gold], []


def status(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["cancelled"]
    req = {"intent": "status", "order_id": order.id, "items": [_item(i) for i in order.items]}
    return req, [], [(money(order.refunded),)]


# -- refusals: the right outcome changes nothing and says why -----------------------------


def _refusal(req: dict[str, Any], order: Order) -> Part:
    req = {**req, "expect": "refusal"}
    return req, [], [REFUSAL_MARKERS, (order.id,)]


def refuse_cancel_delivered(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    return _refusal(
        {
            "intent": "cancel",
            "order_id": order.id,
            "items": [_item(i) for i in order.items],
            "reason": "no longer needed",
        },
        order,
    )


def refuse_cancel_processed(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["processed"]
    return _refusal(
        {
            "intent": "cancel",
            "order_id": order.id,
            "items": [_item(i) for i in order.items],
            "reason": "ordered by mistake",
        },
        order,
    )


def refuse_late_return(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["old"]
    return _refusal(
        {
            "intent": "return",
            "order_id": order.id,
            "items": [_item(i) for i in order.items],
            "refund_to": "original_payment",
        },
        order,
    )


def refuse_refund_above_price(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["older"]
    item = order.items[0]
    return _refusal(
        {
            "intent": "damaged",
            "order_id": order.id,
            "items": [_item(item)],
            "amount": money(item.price + 1000),
        },
        order,
    )


SINGLES: dict[str, Callable[[RetailWorld, Customer, dict[str, Order], int], Part]] = {
    "cancel": cancel,
    "return-one": return_one,
    "return-all": return_all,
    "exchange": exchange,
    "order-address": order_address,
    "default-address": default_address,
    "damaged": damaged,
    "damaged-partial": damaged_partial,
    "dispute": dispute,
    "price-adjustment": price_adjustment,
    "refuse-cancel-delivered": refuse_cancel_delivered,
    "refuse-cancel-processed": refuse_cancel_processed,
    "refuse-late-return": refuse_late_return,
    "refuse-refund-above-price": refuse_refund_above_price,
}
# Parts that only make sense inside a compound request.
PARTS = {**SINGLES, "status": status}
COMPOUNDS: dict[str, tuple[str, ...]] = {
    "cancel+return": ("cancel", "return-one"),
    "return+default-address": ("return-all", "default-address"),
    "status+exchange": ("status", "exchange"),
    "order-address+damaged": ("order-address", "damaged"),
    "cancel+dispute": ("cancel", "dispute"),
    "cancel+return+default-address": ("cancel", "return-one", "default-address"),
}


def _gift_card_chain(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> list[Part] | None:
    """Return one item to the gift card, then pay an exchange's price difference with it:
    only in this order does the gift card cover the difference."""
    order = o["recent"]
    if len(order.items) < 2:
        return None
    give_back, upgrade_item = order.items[0], order.items[1]
    up = _upgrade(w, upgrade_item)
    if up is None or c.gift_card_balance >= up[2] or give_back.price + c.gift_card_balance < up[2]:
        return None
    new_id, option, _ = up
    first: Part = (
        {
            "intent": "return",
            "order_id": order.id,
            "items": [_item(give_back)],
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
    second: Part = (
        {
            "intent": "exchange",
            "order_id": order.id,
            "items": [_item(upgrade_item)],
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
    wants = "; then ".join(_describe(r, order_known) for r in requests)
    known = f"You are {c.first_name} {c.last_name}, zip code {c.address.zip}."
    if gives == "email":
        known += f" Your email is {c.email}."
    return Scenario(
        reason=f"You want to {wants}.",
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
    requests = [p[0] for p in parts]
    gold = tuple(g for p in parts for g in p[1])
    communicate = tuple(x for p in parts for x in p[2])
    refusal = any(r.get("expect") == "refusal" for r in requests)
    handoff = next((g.arguments["category"] for g in gold if g.name == "transfer_to_human"), "")
    kind = (
        TaskKind.REFUSAL
        if refusal and not gold
        else TaskKind.HANDOFF
        if handoff
        else TaskKind.ACTION
    )
    return Task(
        id=f"retail-{n:03d}-{name}-{variant}",
        domain="retail",
        kind=kind,
        scenario=_scenario(c, requests, variant, ordered),
        gold=gold,
        world_seed=WORLD_SEED,
        handoff_category=str(handoff),
        communicate=communicate,
        intents=tuple(r["intent"] for r in requests),
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
                orders = _orders(world, c)
                parts = [PARTS[p](world, c, orders, r_index + v_index) for p in parts_names]
                # Without an order id the items must point at one order of this customer.
                if variant != "order-unknown" or _unique_items(world, c, [p[0] for p in parts]):
                    break
            else:
                continue
            task = _task(n, name, variant, c, parts)
            if f"{name}/{variant}" in SMOKE:
                task = _with_split(task, "smoke")
            tasks.append(task)
            n += 1
    for c in customers:
        chain = _gift_card_chain(world, c, _orders(world, c), n)
        if chain is not None:
            for variant in VARIANTS[:2]:
                tasks.append(
                    _task(n, "return-then-exchange-gift-card", variant, c, chain, ordered=True)
                )
                n += 1
    return tuple(tasks)


def _with_split(task: Task, split: str) -> Task:
    return replace(task, splits=(*task.splits, split))
