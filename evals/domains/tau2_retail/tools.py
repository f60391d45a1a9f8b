"""Our implementation of the τ² retail tools: names and arguments as the task data uses
them, behaviour as the retail policy describes (pending orders can be cancelled or modified
once, delivered orders returned or exchanged; refunds go back to the original payment method
or a gift card; price differences are paid with a method the user owns)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from functools import cache
from typing import Any, Literal

from evals.domains.tau2_common.data import Tau2World, convert_tasks, read_json, transfer
from evals.engine.errors import ToolError
from evals.engine.task import Task
from evals.engine.tools import ToolKind, ToolSet, tool
from evals.engine.world import World


def _user(world: Tau2World, user_id: str) -> dict[str, Any]:
    return world.get("users", user_id, "User")


def _order(world: Tau2World, order_id: str) -> dict[str, Any]:
    return world.get("orders", order_id, "Order")


def _payment(world: Tau2World, user_id: str, payment_method_id: str) -> dict[str, Any]:
    methods = _user(world, user_id)["payment_methods"]
    if payment_method_id not in methods:
        raise ToolError("Payment method not found")
    return methods[payment_method_id]


def _variant(world: Tau2World, item_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    for product in world.tables["products"].values():
        variant = product["variants"].get(item_id)
        if variant is not None:
            return product, variant
    raise ToolError(f"Item {item_id} not found")


@tool(kind=ToolKind.READ)
def find_user_id_by_email(world: Tau2World, email: str) -> str:
    """Find a user id by email address.

    Args:
        email: The email of the user, such as "something@example.com".
    """
    for user_id, user in world.tables["users"].items():
        if user["email"].lower() == email.lower():
            return user_id
    raise ToolError("User not found")


@tool(kind=ToolKind.READ)
def find_user_id_by_name_zip(world: Tau2World, first_name: str, last_name: str, zip: str) -> str:
    """Find a user id by first name, last name and zip code. Use it when the user cannot
    give an email.

    Args:
        first_name: The first name of the customer, such as "John".
        last_name: The last name of the customer, such as "Doe".
        zip: The zip code of the customer, such as "12345".
    """
    for user_id, user in world.tables["users"].items():
        name = user["name"]
        if (
            name["first_name"].lower() == first_name.lower()
            and name["last_name"].lower() == last_name.lower()
            and user["address"]["zip"] == zip
        ):
            return user_id
    raise ToolError("User not found")


@tool(kind=ToolKind.READ)
def get_user_details(world: Tau2World, user_id: str) -> dict:
    """Get the details of a user, including their orders and payment methods.

    Args:
        user_id: The user id, such as "sara_doe_496".
    """
    return _user(world, user_id)


@tool(kind=ToolKind.READ)
def get_order_details(world: Tau2World, order_id: str) -> dict:
    """Get the status and details of an order.

    Args:
        order_id: The order id, such as "#W0000000". Be careful to include the "#".
    """
    return _order(world, order_id)


@tool(kind=ToolKind.READ)
def get_product_details(world: Tau2World, product_id: str) -> dict:
    """Get the inventory details of a product: every variant (item) with its options,
    availability and price.

    Args:
        product_id: The product id, such as "6086499569". Not the same as an item id.
    """
    return world.get("products", product_id, "Product")


@tool(kind=ToolKind.READ)
def get_item_details(world: Tau2World, item_id: str) -> dict:
    """Get the details of one item (a product variant): options, availability and price.

    Args:
        item_id: The item id, such as "1008292230".
    """
    product, variant = _variant(world, item_id)
    return {**variant, "product_id": product["product_id"], "name": product["name"]}


@tool(kind=ToolKind.READ)
def list_all_product_types(world: Tau2World) -> dict:
    """List the name and product id of every product type in the store."""
    return {p["name"]: pid for pid, p in sorted(world.tables["products"].items())}


_OPS: dict[type[ast.AST], Callable[..., float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.left), _eval(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.operand))
    raise ToolError("Invalid characters in expression")


@tool(kind=ToolKind.READ)
def calculate(world: Tau2World, expression: str) -> str:
    """Calculate the result of an arithmetic expression (numbers, + - * / and parentheses).

    Args:
        expression: The expression, such as "2 + 2" or "(54.84 - 10) * 2".
    """
    try:
        return str(round(_eval(ast.parse(expression, mode="eval")), 2))
    except (SyntaxError, ZeroDivisionError) as exc:
        raise ToolError(f"Cannot calculate {expression!r}: {exc}") from None


def _pending(world: Tau2World, order_id: str) -> dict[str, Any]:
    order = _order(world, order_id)
    if order["status"] != "pending":
        raise ToolError("Non-pending order cannot be modified")
    return order


@tool(kind=ToolKind.WRITE)
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
    if _order(world, order_id)["status"] != "pending":
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
    return order


def _credit_gift_card(world: Tau2World, user_id: str, method_id: str, amount: float) -> None:
    method = _user(world, user_id)["payment_methods"].get(method_id)
    if method is not None and method["source"] == "gift_card":
        user = world.edit("users", user_id)
        card = user["payment_methods"][method_id]
        card["balance"] = round(card["balance"] + amount, 2)


@tool(kind=ToolKind.WRITE)
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
    return order


@tool(kind=ToolKind.WRITE)
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
    _user(world, user_id)
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
    method = _payment(world, user_id, method_id)
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


@tool(kind=ToolKind.WRITE)
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
    return order


@tool(kind=ToolKind.WRITE)
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
    return order


def _delivered(world: Tau2World, order_id: str) -> dict[str, Any]:
    order = _order(world, order_id)
    if order["status"] != "delivered":
        raise ToolError("Non-delivered order cannot be returned or exchanged")
    return order


@tool(kind=ToolKind.WRITE)
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
    method = _payment(world, order["user_id"], payment_method_id)
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
    return order


@tool(kind=ToolKind.WRITE)
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
    # The difference is settled when the exchange is processed, so the tool does not check a
    # gift card's balance here (τ²'s gold for task 105 relies on that); the policy asks the
    # agent to.
    _payment(world, order["user_id"], payment_method_id)
    order = world.edit("orders", order_id)
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = diff
    return order


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human_agents(world: Tau2World, summary: str) -> str:
    """Transfer the user to a human agent, with a summary of the issue. Only when the user
    explicitly asks for a human, or the request cannot be handled under the policy.

    Args:
        summary: A summary of the user's issue.
    """
    return transfer(world, summary)


TOOLS = ToolSet(
    [
        find_user_id_by_email,
        find_user_id_by_name_zip,
        get_user_details,
        get_order_details,
        get_product_details,
        get_item_details,
        list_all_product_types,
        calculate,
        cancel_pending_order,
        modify_pending_order_address,
        modify_user_address,
        modify_pending_order_items,
        modify_pending_order_payment,
        return_delivered_order_items,
        exchange_delivered_order_items,
        transfer_to_human_agents,
    ]
)


@cache
def _pristine() -> Tau2World:
    db = read_json("retail", "db.json")
    return Tau2World({name: dict(rows) for name, rows in db.items()})


def build_world(seed: int) -> World:
    return _pristine()


@cache
def load_tasks() -> list[Task]:
    return convert_tasks(
        "tau2_retail",
        TOOLS,
        read_json("retail", "tasks.json"),
        read_json("retail", "split_tasks.json"),
        build_world=build_world,
    )
