"""Lookups the τ² retail tools share."""

from __future__ import annotations

from typing import Any

from evals.domains.tau2_common.data import Tau2World
from evals.engine.errors import ToolError


def user_of(world: Tau2World, user_id: str) -> dict[str, Any]:
    return world.get("users", user_id, "User")


def order_of(world: Tau2World, order_id: str) -> dict[str, Any]:
    return world.get("orders", order_id, "Order")


def payment_of(world: Tau2World, user_id: str, payment_method_id: str) -> dict[str, Any]:
    methods = user_of(world, user_id)["payment_methods"]
    if payment_method_id not in methods:
        raise ToolError("Payment method not found")
    return methods[payment_method_id]


def variant_of(world: Tau2World, item_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    for product in world.tables["products"].values():
        variant = product["variants"].get(item_id)
        if variant is not None:
            return product, variant
    raise ToolError(f"Item {item_id} not found")
