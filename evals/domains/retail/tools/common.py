"""What the retail tools share: argument types, money formatting, the order view."""

from __future__ import annotations

from typing import Any, Literal

from evals.domains.retail.world import CURRENCY, Order, RetailWorld
from evals.engine.world import Notification
from payments_sandbox.domain import Money

CancelReason = Literal["no longer needed", "ordered by mistake"]
RefundTo = Literal["original_payment", "gift_card"]
HandoffCategory = Literal["dispute", "out_of_policy", "fraud", "other"]


def money(minor: int) -> str:
    return Money(minor, CURRENCY).to_decimal_string()


def order_view(order: Order) -> dict[str, Any]:
    return {
        "order_id": order.id,
        "customer_id": order.customer_id,
        "status": order.status,
        "days_since_delivery": order.days_since_delivery,
        "payment_method": order.payment_method,
        "total": money(order.captured),
        "refunded": money(order.refunded),
        "shipping_address": order.address.text(),
        "items": [
            {
                "item_id": i.item_id,
                "product_id": i.product_id,
                "name": i.name,
                "option": i.option,
                "price": money(i.price),
                "status": i.status,
            }
            for i in order.items
        ],
    }


def notify(world: RetailWorld, customer_id: str, kind: str, reference: str) -> None:
    world.backoffice.notifications.append(Notification(customer_id, kind, reference))
