"""The single requests a retail task is composed of, and which ones compound.

Each recipe returns a `Part` (request for the scenario, gold writes, communicate requirements,
required lookups) for a customer of the world.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.domains.retail.tools import money
from evals.domains.retail.world import Customer, Order, OrderItem, RetailWorld
from evals.engine.composition import Part, refusal
from evals.engine.task import GoldCall, TaskKind

WORLD_SEED = 20250
# Retail's policy has no "not possible": its tasks keep the markers they were written with.
REFUSAL_MARKERS = ("can't", "cannot", "unable", "not able", "无法", "不能")
# The policy's reasons for a refusal, in its words in English and Chinese (policy.md,
# policy.zh.md), with the paraphrases a careful agent uses for the same fact.
REASON_DELIVERED = ("already delivered", "been delivered", "已送达", "已经送达")
REASON_PROCESSED = ("already processed", "been processed", "已处理", "已经处理")
REASON_WINDOW = ("30-day", "30 days", "return window", "30 天", "30天", "退货期")
# With the item's price as a number beside them: "the most is $89.00" says it too.
REASON_ITEM_PRICE = ("item's price", "item price", "price of the item", "商品价格", "商品的价格")
NEW_ADDRESSES = [
    {"line1": "12 Harbor Street", "city": "Portland", "zip": "04101"},
    {"line1": "480 Sunset Avenue", "city": "Madison", "zip": "53703"},
    {"line1": "77 Quarry Road", "city": "Salem", "zip": "97301"},
    {"line1": "5 Orchard Lane", "city": "Fairview", "zip": "37062"},
]

Built = tuple[list[dict[str, Any]], list[GoldCall], TaskKind, str, list[tuple[str, ...]]]


def customer_orders(world: RetailWorld, c: Customer) -> dict[str, Order]:
    """The customer's orders by role: pending, processed, recent, older, old, cancelled."""
    roles = ["pending", "processed", "recent", "older", "old", "cancelled"]
    return dict(zip(roles, world.orders_of(c.id), strict=True))


def item_view(i: OrderItem) -> dict[str, str]:
    return {"name": i.name, "option": i.option}


def upgrade_for(world: RetailWorld, item: OrderItem) -> tuple[str, str, int] | None:
    """(new item id, option, price difference) of the next pricier available variant."""
    variants = world.product(item.product_id).variants
    for v in variants:
        if v.available and v.price > item.price:
            return v.item_id, v.option, v.price - item.price
    return None


def sidegrade_for(world: RetailWorld, item: OrderItem) -> tuple[str, str]:
    for v in world.product(item.product_id).variants:
        if v.available and v.item_id != item.item_id:
            return v.item_id, v.option
    raise AssertionError("every product has several available variants")


# -- single requests ------------------------------------------------------------------------


def cancel(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["pending"]
    reason = ["no longer needed", "ordered by mistake"][n % 2]
    req = {
        "intent": "cancel",
        "order_id": order.id,
        "items": [item_view(i) for i in order.items],
        "reason": reason,
    }
    return Part(
        req, [GoldCall("cancel_pending_order", {"order_id": order.id, "reason": reason})], []
    )


def return_one(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    item = order.items[n % len(order.items)]
    refund_to = ["original_payment", "gift_card"][n % 2]
    req = {
        "intent": "return",
        "order_id": order.id,
        "items": [item_view(item)],
        "refund_to": refund_to,
    }
    gold = GoldCall(
        "return_delivered_items",
        {"order_id": order.id, "item_ids": [item.item_id], "refund_to": refund_to},
    )
    return Part(req, [gold], [])


def return_all(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["older"]
    refund_to = ["gift_card", "original_payment"][n % 2]
    req = {
        "intent": "return",
        "order_id": order.id,
        "items": [item_view(i) for i in order.items],
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
    return Part(req, [gold], [])


def exchange(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    item = order.items[(n + 1) % len(order.items)]
    new_id, option = sidegrade_for(w, item)
    req = {
        "intent": "exchange",
        "order_id": order.id,
        "items": [item_view(item)],
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
    return Part(req, [gold], [])


def order_address(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["pending"]
    addr = NEW_ADDRESSES[n % len(NEW_ADDRESSES)]
    req = {
        "intent": "order_address",
        "order_id": order.id,
        "items": [item_view(i) for i in order.items],
        "address": addr,
    }
    return Part(req, [GoldCall("modify_order_address", {"order_id": order.id, **addr})], [])


def default_address(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    addr = NEW_ADDRESSES[(n + 1) % len(NEW_ADDRESSES)]
    req = {"intent": "default_address", "address": addr}
    return Part(req, [GoldCall("modify_default_address", {"customer_id": c.id, **addr})], [])


def damaged(
    w: RetailWorld, c: Customer, o: dict[str, Order], n: int, partial: bool = False
) -> Part:
    order = o["older"]
    item = order.items[n % len(order.items)]
    amount = money(item.price // 2 if partial else item.price)
    req = {"intent": "damaged", "order_id": order.id, "items": [item_view(item)], "amount": amount}
    gold = GoldCall(
        "request_refund",
        {"order_id": order.id, "item_id": item.item_id, "amount": amount, "reason": "damaged"},
    )
    return Part(req, [gold], [("approv", "审批")])


def damaged_partial(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    return damaged(w, c, o, n, partial=True)


def dispute(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["processed"]
    req = {"intent": "dispute", "order_id": order.id, "items": [item_view(i) for i in order.items]}
    gold = GoldCall(
        "transfer_to_human", {"category": "dispute", "summary": "", "order_id": order.id}
    )
    return Part(req, [gold], [])


def price_adjustment(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    req = {
        "intent": "price_adjustment",
        "order_id": order.id,
        "items": [item_view(i) for i in order.items],
    }
    gold = GoldCall(
        "transfer_to_human", {"category": "out_of_policy", "summary": "", "order_id": order.id}
    )
    return Part(req, [gold], [])


def status(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["cancelled"]
    req = {"intent": "status", "order_id": order.id, "items": [item_view(i) for i in order.items]}
    return Part(req, [], [(money(order.refunded),)])


# -- refusals: the right outcome changes nothing, after a lookup, and says why -----------------
# Each reason is given in the words of policy.md and policy.zh.md; the order's record
# (get_order) shows the fact the policy decides on: its status, its delivery date, the item's
# price. The status also shows in get_refund_status.


def _order_read(order: Order) -> tuple[GoldCall, ...]:
    return (GoldCall("get_order", {"order_id": order.id}),)


def _status_read(order: Order) -> tuple[GoldCall, ...]:
    return (*_order_read(order), GoldCall("get_refund_status", {"order_id": order.id}))


def refuse_cancel_delivered(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["recent"]
    return refusal(
        {
            "intent": "cancel",
            "order_id": order.id,
            "items": [item_view(i) for i in order.items],
            "reason": "no longer needed",
        },
        REASON_DELIVERED,
        _status_read(order),
        markers=REFUSAL_MARKERS,
    )


def refuse_cancel_processed(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["processed"]
    return refusal(
        {
            "intent": "cancel",
            "order_id": order.id,
            "items": [item_view(i) for i in order.items],
            "reason": "ordered by mistake",
        },
        REASON_PROCESSED,
        _status_read(order),
        markers=REFUSAL_MARKERS,
    )


def refuse_late_return(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["old"]
    return refusal(
        {
            "intent": "return",
            "order_id": order.id,
            "items": [item_view(i) for i in order.items],
            "refund_to": "original_payment",
        },
        REASON_WINDOW,
        _order_read(order),
        markers=REFUSAL_MARKERS,
    )


def refuse_refund_above_price(w: RetailWorld, c: Customer, o: dict[str, Order], n: int) -> Part:
    order = o["older"]
    item = order.items[0]
    return refusal(
        {
            "intent": "damaged",
            "order_id": order.id,
            "items": [item_view(item)],
            "amount": money(item.price + 1000),
        },
        (money(item.price), *REASON_ITEM_PRICE),
        _order_read(order),
        markers=REFUSAL_MARKERS,
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
