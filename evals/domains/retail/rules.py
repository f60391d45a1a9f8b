"""Deterministic policy checks run by the guard before every retail WRITE.

Refund rules are not restated here: they come from payments_sandbox.domain, the rulebook the
backoffice services enforce too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.domains.retail.world import CURRENCY, RETURN_WINDOW_DAYS, RetailWorld
from evals.engine.messages import Violation
from evals.engine.policy.verified import verified_first
from evals.engine.world import World
from payments_sandbox.domain import (
    PENDING_REFUND_STATES,
    AmountError,
    CurrencyError,
    Money,
    RefundableFacts,
    RefundState,
    check_refund_request,
    payment_status_after_refunds,
)

_ORDER_TOOLS = {
    "cancel_pending_order": "pending",
    "modify_order_address": "pending",
    "return_delivered_items": "delivered",
    "exchange_delivered_items": "delivered",
    "request_refund": "delivered",
}


def refundable_facts(world: RetailWorld, order_id: str) -> RefundableFacts:
    order = world.order(order_id)
    pending = sum(
        r.amount
        for r in world.backoffice.refund_requests
        if r.reference.startswith(f"{order.id}/") and RefundState(r.state) in PENDING_REFUND_STATES
    )
    captured = Money(order.captured, CURRENCY)
    refunded = Money(order.refunded, CURRENCY)
    return RefundableFacts(
        captured=captured,
        refunded=refunded,
        pending=Money(pending, CURRENCY),
        payment_status=payment_status_after_refunds(captured, refunded).value,
    )


@verified_first("Authenticate the customer first (email, or name and zip).")
def check_rules(world: World, tool: str, args: Mapping[str, Any], verified: str) -> list[Violation]:
    assert isinstance(world, RetailWorld)
    if tool == "modify_default_address":
        if args.get("customer_id") != verified:
            return [
                Violation(
                    "other_customer", "You may only change the authenticated customer's profile."
                )
            ]
        return []
    order = world.tables["orders"].get(args.get("order_id", ""))
    if order is None:
        return []  # the tool itself answers "no such order"
    if order.customer_id != verified:
        return [
            Violation(
                "other_customer", f"Order {order.id} does not belong to the authenticated customer."
            )
        ]
    violations: list[Violation] = []
    wanted = _ORDER_TOOLS.get(tool)
    if wanted and order.status != wanted:
        violations.append(
            Violation(
                "order_status",
                f"Order {order.id} is {order.status}; this action needs a {wanted} order.",
            )
        )
    if tool in ("return_delivered_items", "exchange_delivered_items", "request_refund") and (
        order.days_since_delivery > RETURN_WINDOW_DAYS
    ):
        violations.append(
            Violation(
                "outside_window",
                f"Order {order.id} was delivered {order.days_since_delivery} days ago; the window is "
                f"{RETURN_WINDOW_DAYS} days.",
            )
        )
    if tool == "request_refund":
        violations += _refund_violations(world, order.id, args)
    return violations


def _refund_violations(
    world: RetailWorld, order_id: str, args: Mapping[str, Any]
) -> list[Violation]:
    try:
        amount = Money.parse(str(args.get("amount", "")), CURRENCY)
    except (AmountError, CurrencyError) as exc:
        return [Violation("invalid_amount", str(exc))]
    order = world.order(order_id)
    item = next((i for i in order.items if i.item_id == args.get("item_id")), None)
    found: list[Violation] = []
    if item is not None and amount.amount > item.price:
        found.append(
            Violation(
                "exceeds_item_price",
                f"A damaged-item refund may not exceed the item's price "
                f"{Money(item.price, CURRENCY).format()}.",
            )
        )
    found += [
        Violation(v.code, v.message)
        for v in check_refund_request(refundable_facts(world, order_id), amount)
    ]
    return found
