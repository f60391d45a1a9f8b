"""The τ² retail WRITE tools, behaving as the retail policy describes."""

from __future__ import annotations

from typing import Any, Literal

from evals.domains.tau2_common.data import Tau2World, transfer
from evals.domains.tau2_retail.tools.common import order_of, payment_of, user_of
from evals.engine.errors import ToolError
from evals.engine.tools import Confirm, ToolKind, tool

# What the customer confirms before each write (the policy: "list the action details and
# obtain explicit user confirmation"): the confirmation rule checks the agent's summary shows
# these arguments' values.
_ADDRESS = ("address1", "address2", "city", "state", "country", "zip")
_SWAP = ("item_ids", "new_item_ids", "payment_method_id")


def _pending(world: Tau2World, order_id: str) -> dict[str, Any]:
    order = order_of(world, order_id)
    if order["status"] != "pending":
        raise ToolError("Non-pending order cannot be modified")
    return order


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("cancel", "取消"), keys=("order_id", "reason")))
def cancel_pending_order(
    world: Tau2World, order_id: str, reason: Literal["no longer needed", "ordered by mistake"]
) -> dict:
    """Cancel a pending order. Refunds go back to the original payment methods (gift cards
    at once, other methods in 5-7 business days). Ask the customer for explicit confirmation
    (yes) before calling.

    Args:
        order_id: The order id, such as "#W0000000".
        reason: "no longer needed" or "ordered by mistake".
    """
    if order_of(world, order_id)["status"] != "pending":
        raise ToolError("Non-pending order cannot be cancelled")
    order = world.edit("orders", order_id)
    refunds = []
    for payment in order["payment_history"]:
        refunds.append(
            {
                "transaction_type": "refund",
                "amount": payment["amount"],
                "payment_method_id": payment["payment_method_id"],
            }
        )
        _credit_gift_card(world, order["user_id"], payment["payment_method_id"], payment["amount"])
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    order["payment_history"] = [*order["payment_history"], *refunds]
    world.shown.add(order_id)
    return order


def _credit_gift_card(world: Tau2World, user_id: str, method_id: str, amount: float) -> None:
    method = user_of(world, user_id)["payment_methods"].get(method_id)
    if method is not None and method["source"] == "gift_card":
        user = world.edit("users", user_id)
        card = user["payment_methods"][method_id]
        card["balance"] = round(card["balance"] + amount, 2)


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("address", "地址"), keys=("order_id", *_ADDRESS)))
def modify_pending_order_address(
    world: Tau2World,
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> dict:
    """Modify the shipping address of a pending order. Ask for explicit confirmation first.

    Args:
        order_id: The order id, such as "#W0000000".
        address1: The first line of the address, such as "123 Main St".
        address2: The second line, such as "Apt 1", or "".
        city: The city, such as "San Francisco".
        state: The state, such as "CA".
        country: The country, such as "USA".
        zip: The zip code, such as "12345".
    """
    _pending(world, order_id)
    order = world.edit("orders", order_id)
    order["address"] = {
        "address1": address1,
        "address2": address2,
        "city": city,
        "country": country,
        "state": state,
        "zip": zip,
    }
    world.shown.add(order_id)
    return order


@tool(kind=ToolKind.WRITE, confirm=Confirm(words=("address", "地址"), keys=_ADDRESS))
def modify_user_address(
    world: Tau2World,
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> dict:
    """Modify the default address of a user. Ask for explicit confirmation first.

    Args:
        user_id: The user id, such as "sara_doe_496".
        address1: The first line of the address, such as "123 Main St".
        address2: The second line, such as "Apt 1", or "".
        city: The city, such as "San Francisco".
        state: The state, such as "CA".
        country: The country, such as "USA".
        zip: The zip code, such as "12345".
    """
    user_of(world, user_id)
    user = world.edit("users", user_id)
    user["address"] = {
        "address1": address1,
        "address2": address2,
        "city": city,
        "country": country,
        "state": state,
        "zip": zip,
    }
    return user


def _charge(world: Tau2World, user_id: str, method_id: str, amount: float) -> None:
    """Check a method can pay `amount` (gift cards need the balance) and debit gift cards."""
    method = payment_of(world, user_id, method_id)
    if method["source"] == "gift_card":
        if method["balance"] < amount:
            raise ToolError("Insufficient gift card balance to pay for the price difference")
        user = world.edit("users", user_id)
        card = user["payment_methods"][method_id]
        card["balance"] = round(card["balance"] - amount, 2)


def _swap(
    world: Tau2World, order: dict[str, Any], item_ids: list[str], new_item_ids: list[str]
) -> float:
    """Validate an item swap and return the price difference (new - old)."""
    if len(item_ids) != len(new_item_ids):
        raise ToolError("The number of items to be exchanged should match")
    remaining = [item["item_id"] for item in order["items"]]
    diff = 0.0
    for old_id, new_id in zip(item_ids, new_item_ids, strict=True):
        if old_id not in remaining:
            raise ToolError(f"Item {old_id} not found in the order")
        remaining.remove(old_id)
        item = next(i for i in order["items"] if i["item_id"] == old_id)
        product = world.get("products", item["product_id"], "Product")
        variant = product["variants"].get(new_id)
        if variant is None:
            raise ToolError(f"New item {new_id} not found or is not the same product")
        if not variant["available"]:
            raise ToolError(f"New item {new_id} not available")
        diff += variant["price"] - item["price"]
    return round(diff, 2)


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("modify", "change", "修改", "更改"), keys=("order_id", *_SWAP)),
)
def modify_pending_order_items(
    world: Tau2World,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> dict:
    """Modify items of a pending order to other options of the same product. Can be done
    only once per order. Ask for explicit confirmation first.

    Args:
        order_id: The order id, such as "#W0000000".
        item_ids: The ids of the items to change, such as ["1008292230"]; may repeat.
        new_item_ids: The ids of the new items, in the same order, same product each.
        payment_method_id: Pays or receives the price difference, such as "gift_card_0000000"
            or "credit_card_0000000"; it must belong to the user.
    """
    order = _pending(world, order_id)
    diff = _swap(world, order, item_ids, new_item_ids)
    _charge(world, order["user_id"], payment_method_id, max(diff, 0.0))
    if diff < 0:
        _credit_gift_card(world, order["user_id"], payment_method_id, -diff)
    order = world.edit("orders", order_id)
    items = order["items"]
    for old_id, new_id in zip(item_ids, new_item_ids, strict=True):
        index = next(
            i for i, it in enumerate(items) if it["item_id"] == old_id and not it.get("_swapped")
        )
        product = world.tables["products"][items[index]["product_id"]]
        variant = product["variants"][new_id]
        items[index] = {
            **items[index],
            "item_id": new_id,
            "price": variant["price"],
            "options": variant["options"],
            "_swapped": True,
        }
    for item in items:
        item.pop("_swapped", None)
    if diff:
        order["payment_history"] = [
            *order["payment_history"],
            {
                "transaction_type": "payment" if diff > 0 else "refund",
                "amount": abs(diff),
                "payment_method_id": payment_method_id,
            },
        ]
    order["status"] = "pending (item modified)"
    world.shown.add(order_id)
    return order


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("payment", "付款", "支付"), keys=("order_id", "payment_method_id")),
)
def modify_pending_order_payment(world: Tau2World, order_id: str, payment_method_id: str) -> dict:
    """Change the payment method of a pending order. Ask for explicit confirmation first.

    Args:
        order_id: The order id, such as "#W0000000".
        payment_method_id: The new payment method, such as "gift_card_0000000"; it must
            belong to the user and differ from the current one.
    """
    order = _pending(world, order_id)
    payments = [p for p in order["payment_history"] if p["transaction_type"] == "payment"]
    if len(order["payment_history"]) != 1 or len(payments) != 1:
        raise ToolError("There should be exactly one payment for a pending order")
    old = payments[0]
    if old["payment_method_id"] == payment_method_id:
        raise ToolError("The new payment method should be different from the current one")
    amount = old["amount"]
    _charge(world, order["user_id"], payment_method_id, amount)
    _credit_gift_card(world, order["user_id"], old["payment_method_id"], amount)
    order = world.edit("orders", order_id)
    order["payment_history"] = [
        *order["payment_history"],
        {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
        {
            "transaction_type": "refund",
            "amount": amount,
            "payment_method_id": old["payment_method_id"],
        },
    ]
    world.shown.add(order_id)
    return order


def _delivered(world: Tau2World, order_id: str) -> dict[str, Any]:
    order = order_of(world, order_id)
    if order["status"] != "delivered":
        raise ToolError("Non-delivered order cannot be returned or exchanged")
    return order


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(
        words=("return", "退货", "退回"), keys=("order_id", "item_ids", "payment_method_id")
    ),
)
def return_delivered_order_items(
    world: Tau2World, order_id: str, item_ids: list[str], payment_method_id: str
) -> dict:
    """Return items of a delivered order. The refund goes to the original payment method or
    an existing gift card. Ask for explicit confirmation first.

    Args:
        order_id: The order id, such as "#W0000000".
        item_ids: The ids of the items to return, such as ["1008292230"]; may repeat.
        payment_method_id: Receives the refund: the original payment method or a gift card.
    """
    order = _delivered(world, order_id)
    method = payment_of(world, order["user_id"], payment_method_id)
    original = order["payment_history"][0]["payment_method_id"]
    if method["source"] != "gift_card" and payment_method_id != original:
        raise ToolError("Payment method should be the original payment method or a gift card")
    remaining = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_id not in remaining:
            raise ToolError("Some item not found")
        remaining.remove(item_id)
    order = world.edit("orders", order_id)
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    world.shown.add(order_id)
    return order


@tool(
    kind=ToolKind.WRITE,
    confirm=Confirm(words=("exchange", "换货", "更换"), keys=("order_id", *_SWAP)),
)
def exchange_delivered_order_items(
    world: Tau2World,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> dict:
    """Exchange items of a delivered order for other options of the same product. Can be
    done only once per order. Ask for explicit confirmation first.

    Args:
        order_id: The order id, such as "#W0000000".
        item_ids: The ids of the items to exchange, such as ["1008292230"]; may repeat.
        new_item_ids: The ids of the new items, in the same order, same product each.
        payment_method_id: Pays or receives the price difference; it must belong to the user
            (a gift card needs enough balance).
    """
    order = _delivered(world, order_id)
    diff = _swap(world, order, item_ids, new_item_ids)
    # The policy: a gift card must cover the price difference. The difference is settled when
    # the exchange is processed, so nothing is debited now. τ²'s gold for task 105 breaks this
    # rule ($21.10 on a $17.00 card): that step is its data defect, noted on the task.
    method = payment_of(world, order["user_id"], payment_method_id)
    if method["source"] == "gift_card" and diff > 0 and method["balance"] < diff:
        raise ToolError("Insufficient gift card balance to pay for the price difference")
    order = world.edit("orders", order_id)
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = diff
    world.shown.add(order_id)
    return order


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human_agents(world: Tau2World, summary: str) -> str:
    """Transfer the user to a human agent, with a summary of the issue. Only when the user
    explicitly asks for a human, or the request cannot be handled under the policy.

    Args:
        summary: A summary of the user's issue.
    """
    return transfer(world, summary)
