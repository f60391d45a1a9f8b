"""The retail WRITE tools (guarded by the policy rules and the confirmation rule).
Docstrings are written for the model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evals.domains.retail.tools.common import (
    CancelReason,
    HandoffCategory,
    RefundTo,
    money,
    notify,
)
from evals.domains.retail.world import CURRENCY, ROSTER, Address, Order, RetailWorld
from evals.engine.errors import ToolError
from evals.engine.tools import Confirm, ToolKind, tool
from evals.engine.world import Handoff, RefundRequest
from payments_sandbox.domain import AmountError, CurrencyError, Money, RefundState


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("cancel", "取消"), keys=("order_id", "reason")),
)
def cancel_pending_order(world: RetailWorld, order_id: str, reason: CancelReason) -> dict[str, Any]:
    """Cancel a pending order and refund its total to the original payment method (a gift
    card is credited at once). Only for orders with status "pending". Requires the customer's
    explicit confirmation of the order id and the reason.

    Args:
        order_id: The order id, e.g. "#W1234567".
        reason: "no longer needed" or "ordered by mistake" — no other reason is accepted.
    """
    order = world.order(order_id)
    if order.status != "pending":
        raise ToolError(
            f"Order {order_id} is {order.status}; only pending orders can be cancelled."
        )
    items = tuple(replace(i, status="cancelled") for i in order.items)
    world.put(
        "orders",
        order.id,
        replace(
            order, status="cancelled", items=items, refunded=order.captured, cancel_reason=reason
        ),
    )
    if order.payment_method == "gift_card":
        c = world.customer(order.customer_id)
        world.put(
            "customers", c.id, replace(c, gift_card_balance=c.gift_card_balance + order.captured)
        )
    notify(world, order.customer_id, "order_cancelled", order.id)
    return {"order_id": order.id, "status": "cancelled", "refunded": money(order.captured)}


def _items(order: Order, item_ids: list[str], status: str) -> list[int]:
    if not item_ids:
        raise ToolError("Give at least one item id.")
    if len(set(item_ids)) != len(item_ids):
        raise ToolError("An item id is listed twice.")
    index = {i.item_id: n for n, i in enumerate(order.items)}
    positions = []
    for item_id in item_ids:
        if item_id not in index:
            raise ToolError(f"Item {item_id} is not in order {order.id}.")
        if order.items[index[item_id]].status != status:
            raise ToolError(
                f"Item {item_id} is {order.items[index[item_id]].status}, not {status}."
            )
        positions.append(index[item_id])
    return positions


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("return", "退货", "退回"), keys=("order_id", "item_ids", "refund_to")),
)
def return_delivered_items(
    world: RetailWorld, order_id: str, item_ids: list[str], refund_to: RefundTo
) -> dict[str, Any]:
    """Request the return of delivered items and refund their price. A refund to the gift
    card is credited at once; to the original payment method when the items come back. Only
    for delivered orders within the 30-day return window. Requires explicit confirmation of
    the order id, the items and where the refund goes.

    Args:
        order_id: The order id, e.g. "#W1234567".
        item_ids: The item ids (from get_order) of the items to return.
        refund_to: "original_payment" or "gift_card".
    """
    order = world.order(order_id)
    if order.status != "delivered":
        raise ToolError(
            f"Order {order_id} is {order.status}; only delivered orders can be returned."
        )
    positions = _items(order, item_ids, "delivered")
    items = list(order.items)
    amount = 0
    for n in positions:
        amount += items[n].price
        items[n] = replace(items[n], status="return_requested")
    world.put(
        "orders", order.id, replace(order, items=tuple(items), refunded=order.refunded + amount)
    )
    if refund_to == "gift_card":
        c = world.customer(order.customer_id)
        world.put("customers", c.id, replace(c, gift_card_balance=c.gift_card_balance + amount))
    notify(world, order.customer_id, "return_requested", order.id)
    return {
        "order_id": order.id,
        "returned_items": item_ids,
        "refund": money(amount),
        "refund_to": refund_to,
    }


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(
        words=("exchange", "换货", "更换"), keys=("order_id", "item_ids", "new_item_ids", "payment")
    ),
)
def exchange_delivered_items(
    world: RetailWorld,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment: RefundTo,
) -> dict[str, Any]:
    """Exchange delivered items for other available variants of the same product. The price
    difference is charged to (or refunded to) `payment`; a gift card must cover a positive
    difference. Only for delivered orders within the 30-day window. Requires explicit
    confirmation of the order, the items, the new items and the payment.

    Args:
        order_id: The order id, e.g. "#W1234567".
        item_ids: Item ids (from get_order) of the items to exchange.
        new_item_ids: For each item, the item id of the new variant (from get_product).
        payment: "original_payment" or "gift_card", for the price difference.
    """
    order = world.order(order_id)
    if order.status != "delivered":
        raise ToolError(
            f"Order {order_id} is {order.status}; only delivered orders can be exchanged."
        )
    if len(item_ids) != len(new_item_ids):
        raise ToolError("Give exactly one new item id per exchanged item.")
    positions = _items(order, item_ids, "delivered")
    items = list(order.items)
    difference = 0
    for n, new_id in zip(positions, new_item_ids, strict=True):
        product = world.product(items[n].product_id)
        variant = next((v for v in product.variants if v.item_id == new_id), None)
        if variant is None:
            raise ToolError(f"Item {new_id} is not a variant of {product.name} ({product.id}).")
        if not variant.available or variant.item_id == items[n].item_id:
            raise ToolError(f"Item {new_id} is not available for this exchange.")
        difference += variant.price - items[n].price
        items[n] = replace(items[n], status="exchange_requested", exchange_for=new_id)
    c = world.customer(order.customer_id)
    if payment == "gift_card":
        if difference > c.gift_card_balance:
            raise ToolError(
                f"The gift card balance {money(c.gift_card_balance)} does not cover the price "
                f"difference {money(difference)}."
            )
        world.put("customers", c.id, replace(c, gift_card_balance=c.gift_card_balance - difference))
        world.put("orders", order.id, replace(order, items=tuple(items)))
    else:
        world.put(
            "orders",
            order.id,
            replace(order, items=tuple(items), captured=order.captured + difference),
        )
    notify(world, order.customer_id, "exchange_requested", order.id)
    return {"order_id": order.id, "price_difference": money(difference), "payment": payment}


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("address", "地址"), keys=("order_id", "line1", "zip")),
)
def modify_order_address(
    world: RetailWorld, order_id: str, line1: str, city: str, zip: str
) -> dict[str, Any]:
    """Change the shipping address of a pending order. Requires explicit confirmation of the
    order id and the new address.

    Args:
        order_id: The order id, e.g. "#W1234567".
        line1: Street line, e.g. "12 Oak Street".
        city: City name.
        zip: 5-digit zip code.
    """
    order = world.order(order_id)
    if order.status != "pending":
        raise ToolError(f"Order {order_id} is {order.status}; only pending orders can be changed.")
    world.put(
        "orders",
        order.id,
        replace(order, address=Address(line1.strip(), city.strip(), zip.strip())),
    )
    notify(world, order.customer_id, "order_address_changed", order.id)
    return {"order_id": order.id, "shipping_address": f"{line1}, {city}, {zip}"}


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("address", "地址"), keys=("line1", "zip")),
)
def modify_default_address(
    world: RetailWorld, customer_id: str, line1: str, city: str, zip: str
) -> dict[str, Any]:
    """Change the customer's default address (future orders; existing orders keep theirs).
    Requires explicit confirmation of the new address.

    Args:
        customer_id: The customer's id.
        line1: Street line, e.g. "12 Oak Street".
        city: City name.
        zip: 5-digit zip code.
    """
    c = world.customer(customer_id)
    world.put(
        "customers", c.id, replace(c, address=Address(line1.strip(), city.strip(), zip.strip()))
    )
    notify(world, c.id, "default_address_changed", c.id)
    return {"customer_id": c.id, "default_address": f"{line1}, {city}, {zip}"}


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("refund", "退款"), keys=("order_id", "amount")),
    free_text=("reason",),
)
def request_refund(
    world: RetailWorld, order_id: str, item_id: str, amount: str, reason: str
) -> dict[str, Any]:
    """Ask for a refund for an item that arrived damaged on a delivered order. The request
    stays in the sandbox until a named human approves it. The amount may not exceed the
    item's price nor what is still refundable on the order.

    Args:
        order_id: The order id, e.g. "#W1234567".
        item_id: The damaged item's id (from get_order).
        amount: Amount in dollars as a decimal string, e.g. "24.99".
        reason: One sentence for the approver.
    """
    order = world.order(order_id)
    if order.status != "delivered":
        raise ToolError(
            f"Order {order_id} is {order.status}; refund requests need a delivered order."
        )
    if not any(i.item_id == item_id for i in order.items):
        raise ToolError(f"Item {item_id} is not in order {order_id}.")
    try:
        value = Money.parse(amount, CURRENCY)
    except (AmountError, CurrencyError) as exc:
        raise ToolError(str(exc)) from None
    world.backoffice.refund_requests.append(
        RefundRequest(
            f"{order.id}/{item_id}", value.amount, CURRENCY, RefundState.REQUESTED.value, reason
        )
    )
    notify(world, order.customer_id, "refund_requested", order.id)
    return {
        "order_id": order.id,
        "amount": value.to_decimal_string(),
        "state": RefundState.REQUESTED.value,
    }


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human(
    world: RetailWorld, category: HandoffCategory, summary: str, order_id: str = ""
) -> str:
    """Hand the conversation to a named human colleague: disputes of a charge ("dispute"),
    requests outside this policy ("out_of_policy"), suspected fraud ("fraud"), anything else
    you cannot handle ("other"). The conversation ends after the transfer.

    Args:
        category: "dispute", "out_of_policy", "fraud" or "other".
        summary: Two sentences for the human: who, what they want, what you checked.
        order_id: The order concerned, if any.
    """
    assignee = ROSTER[category]
    # The case belongs to the order's customer when there is an order; otherwise to whoever
    # was authenticated (possibly nobody: a handoff needs no authentication).
    order = world.tables["orders"].get(order_id)
    customer_id = order.customer_id if order else world.session.verified_customer_id
    world.backoffice.handoffs.append(Handoff(category, assignee, customer_id, order_id, summary))
    return f"Transferred to {assignee}."
