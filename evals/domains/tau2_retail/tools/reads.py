"""The τ² retail READ tools (and `calculate`)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from evals.domains.tau2_common.data import Tau2World
from evals.domains.tau2_retail.tools.common import order_of, user_of, variant_of
from evals.engine.errors import ToolError
from evals.engine.tools import ToolKind, tool


@tool(kind=ToolKind.READ)
def find_user_id_by_email(world: Tau2World, email: str) -> str:
    """Authenticate the customer: find their user id by email address. Do this (or
    find_user_id_by_name_zip) before acting on their account, even when they give a user id.

    Args:
        email: The email of the user, such as "something@example.com".
    """
    for user_id, user in world.tables["users"].items():
        if user["email"].lower() == email.lower():
            return _authenticated(world, user_id)
    raise ToolError("User not found")


def _authenticated(world: Tau2World, user_id: str) -> str:
    """The policy allows one customer per conversation: the first one located stays the
    authenticated customer (a second lookup finds an id, it does not switch customers)."""
    if not world.session.verified_customer_id:
        world.session.verified_customer_id = user_id
    return user_id


@tool(kind=ToolKind.READ)
def find_user_id_by_name_zip(world: Tau2World, first_name: str, last_name: str, zip: str) -> str:
    """Authenticate the customer: find their user id by first name, last name and zip code.
    Use it when the user cannot give an email.

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
            return _authenticated(world, user_id)
    raise ToolError("User not found")


@tool(kind=ToolKind.READ)
def get_user_details(world: Tau2World, user_id: str) -> dict:
    """Get the details of a user, including their orders and payment methods.

    Args:
        user_id: The user id, such as "sara_doe_496".
    """
    return user_of(world, user_id)


@tool(kind=ToolKind.READ)
def get_order_details(world: Tau2World, order_id: str) -> dict:
    """Get the status and details of an order.

    Args:
        order_id: The order id, such as "#W0000000". Be careful to include the "#".
    """
    order = order_of(world, order_id)
    world.shown.add(order_id)
    return order


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
    product, variant = variant_of(world, item_id)
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
