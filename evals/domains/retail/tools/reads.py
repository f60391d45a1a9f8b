"""The retail READ tools (lookups). Docstrings are written for the model."""

from __future__ import annotations

from typing import Any

from evals.domains.retail.tools.common import money, order_view
from evals.domains.retail.world import RetailWorld
from evals.engine.errors import ToolError
from evals.engine.identity import email_lookup
from evals.engine.tools import ToolKind, tool

find_customer_by_email = email_lookup(
    """Authenticate the customer by the email address of their account. Returns their
    customer id. Do this (or find_customer_by_name_zip) before anything else.

    Args:
        email: The email address the customer gave, e.g. "sara.lopez3@example.com".
    """
)


@tool(kind=ToolKind.READ)
def find_customer_by_name_zip(
    world: RetailWorld, first_name: str, last_name: str, zip: str
) -> dict[str, str]:
    """Authenticate the customer by full name and the zip code of their default address.
    Returns their customer id.

    Args:
        first_name: The customer's first name, e.g. "Sara".
        last_name: The customer's last name, e.g. "Lopez".
        zip: The 5-digit zip code, e.g. "19122".
    """
    key = (first_name.strip().lower(), last_name.strip().lower(), zip.strip())
    for c in world.tables["customers"].values():
        if (c.first_name.lower(), c.last_name.lower(), c.address.zip) == key:
            world.session.verified_customer_id = c.id
            return {"customer_id": c.id}
    raise ToolError("No customer matches that name and zip code.")


@tool(kind=ToolKind.READ)
def get_customer(world: RetailWorld, customer_id: str) -> dict[str, Any]:
    """The customer's profile: name, email, default address, gift card balance, order ids.

    Args:
        customer_id: The id returned by the find_customer tools.
    """
    c = world.customer(customer_id)
    return {
        "customer_id": c.id,
        "name": f"{c.first_name} {c.last_name}",
        "email": c.email,
        "default_address": c.address.text(),
        "gift_card_balance": money(c.gift_card_balance),
        "orders": [o.id for o in world.orders_of(c.id)],
    }


@tool(kind=ToolKind.READ)
def get_order(world: RetailWorld, order_id: str) -> dict[str, Any]:
    """Details of one order: status, items (item id, product id, name, option, price,
    status), payment method, total, amount refunded, shipping address, days since delivery.

    Args:
        order_id: The order id including the leading '#', e.g. "#W1234567".
    """
    return order_view(world.order(order_id))


@tool(kind=ToolKind.READ)
def get_product(world: RetailWorld, product_id: str) -> dict[str, Any]:
    """A product's variants (item id, option, price, availability), to find the item a
    customer wants in an exchange.

    Args:
        product_id: The product id shown on an order item, e.g. "P103".
    """
    p = world.product(product_id)
    return {
        "product_id": p.id,
        "name": p.name,
        "variants": [
            {
                "item_id": v.item_id,
                "option": v.option,
                "price": money(v.price),
                "available": v.available,
            }
            for v in p.variants
        ],
    }


@tool(kind=ToolKind.READ)
def get_refund_status(world: RetailWorld, order_id: str) -> dict[str, Any]:
    """What was paid and refunded on an order, and its refund requests with their states.

    Args:
        order_id: The order id, e.g. "#W1234567".
    """
    order = world.order(order_id)
    requests = [r for r in world.backoffice.refund_requests if r.reference.startswith(order.id)]
    return {
        "order_id": order.id,
        "status": order.status,
        "paid": money(order.captured),
        "refunded": money(order.refunded),
        "refund_requests": [{"amount": money(r.amount), "state": r.state} for r in requests],
    }
