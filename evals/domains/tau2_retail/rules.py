"""The deterministic rules of τ² retail's policy (`tau2_common/data/retail/policy.md`), checked
by the guard before every WRITE. Only what the policy text states as a rule:

- authenticate first (a user id located with find_user_id_by_email or
  find_user_id_by_name_zip in this conversation), and act only for that one customer;
- the order's status for each action (cancel and modify: pending; return and exchange:
  delivered — which also makes "modify items" and "exchange" once-only, since each moves the
  order out of that status), checked by the agent before the action;
- payment methods: the customer's own; a changed payment method differs from the original;
  a refund goes to the original method or an existing gift card; a gift card covers what it
  pays (the order total, or the price difference);
- items change only to an available, different option of the same product.

The explicit-confirmation rule ("list the action details and obtain explicit user
confirmation (yes)") is the engine's: each write tool declares what the customer confirms.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.domains.tau2_common.data import Tau2World
from evals.engine.messages import Violation
from evals.engine.policy.verified import verified_first
from evals.engine.world import World

# The status each action needs, and the policy's name for the action.
_NEEDS = {
    "cancel_pending_order": ("pending", "cancelling"),
    "modify_pending_order_address": ("pending", "modifying"),
    "modify_pending_order_items": ("pending", "modifying"),
    "modify_pending_order_payment": ("pending", "modifying"),
    "return_delivered_order_items": ("delivered", "returning"),
    "exchange_delivered_order_items": ("delivered", "exchanging"),
}


@verified_first(
    "Authenticate the customer first: locate their user id with "
    "find_user_id_by_email or find_user_id_by_name_zip (even when they give you "
    "a user id).",
    transfer="transfer_to_human_agents",
)
def check_rules(world: World, tool: str, args: Mapping[str, Any], verified: str) -> list[Violation]:
    assert isinstance(world, Tau2World)
    if tool == "modify_user_address":
        if args.get("user_id") != verified:
            return [_other_customer(f"User {args.get('user_id')} is not", verified)]
        return []
    order_id = str(args.get("order_id", ""))
    order = world.tables["orders"].get(order_id)
    if order is None or tool not in _NEEDS:
        return []  # the tool itself answers "order not found"
    if order["user_id"] != verified:
        return [_other_customer(f"Order {order_id} does not belong to", verified)]
    found = _status(world, tool, order_id, order)
    user = world.tables["users"][verified]
    if tool == "modify_pending_order_payment":
        found += _payment_change(user, order, str(args.get("payment_method_id", "")))
    elif tool in ("modify_pending_order_items", "exchange_delivered_order_items"):
        found += _item_swap(world, user, order, args)
    elif tool == "return_delivered_order_items":
        found += _refund_method(user, order, str(args.get("payment_method_id", "")))
    return found


def _other_customer(what: str, verified: str) -> Violation:
    return Violation(
        "other_customer",
        f"{what} the authenticated customer ({verified}). You can help only one customer per "
        "conversation: deny requests about any other.",
    )


def _status(
    world: Tau2World, tool: str, order_id: str, order: Mapping[str, Any]
) -> list[Violation]:
    wanted, doing = _NEEDS[tool]
    found = []
    status = order["status"]
    if status != wanted:
        once = ""
        if status.startswith("pending ("):
            once = " Its items were already modified: it cannot be modified or cancelled any more."
        elif status == "exchange requested":
            once = " An exchange was already requested for it: it can be exchanged only once."
        found.append(
            Violation(
                "order_status",
                f"Order {order_id} is '{status}'; {doing} an order needs status '{wanted}'.{once}",
            )
        )
    if order_id not in world.shown:
        found.append(
            Violation(
                "order_not_checked",
                f"Check the status of order {order_id} (get_order_details) before {doing} it.",
            )
        )
    return found


def _method(user: Mapping[str, Any], method_id: str) -> Mapping[str, Any] | None:
    method = user["payment_methods"].get(method_id)
    return method if isinstance(method, Mapping) else None


def _not_on_file(user: Mapping[str, Any], method_id: str) -> Violation:
    return Violation(
        "payment_method_not_on_file",
        f"Payment method {method_id} is not one of the customer's payment methods "
        f"({', '.join(sorted(user['payment_methods']))}).",
    )


def _short(method_id: str, method: Mapping[str, Any], amount: float, what: str) -> list[Violation]:
    """A gift card that cannot cover `amount`."""
    balance = float(method.get("balance", 0.0))
    if method.get("source") == "gift_card" and amount > 0 and balance < amount:
        return [
            Violation(
                "gift_card_balance",
                f"Gift card {method_id} holds ${balance:.2f}, less than the ${amount:.2f} "
                f"{what}; the customer must choose another payment method.",
            )
        ]
    return []


def _original(order: Mapping[str, Any]) -> str:
    history = order.get("payment_history") or [{}]
    return str(history[0].get("payment_method_id", ""))


def _payment_change(
    user: Mapping[str, Any], order: Mapping[str, Any], method_id: str
) -> list[Violation]:
    method = _method(user, method_id)
    if method is None:
        return [_not_on_file(user, method_id)]
    if method_id == _original(order):
        return [
            Violation(
                "same_payment_method",
                f"{method_id} already pays order {order['order_id']}: the new payment method "
                "must differ from the original one.",
            )
        ]
    total = sum(
        float(p["amount"])
        for p in order.get("payment_history") or ()
        if p.get("transaction_type") == "payment"
    )
    return _short(method_id, method, round(total, 2), "order total")


def _refund_method(
    user: Mapping[str, Any], order: Mapping[str, Any], method_id: str
) -> list[Violation]:
    method = _method(user, method_id)
    if method is None:
        return [_not_on_file(user, method_id)]
    original = _original(order)
    if method_id != original and method.get("source") != "gift_card":
        return [
            Violation(
                "refund_method",
                f"The refund must go to the original payment method ({original}) or an "
                f"existing gift card, not {method_id}.",
            )
        ]
    return []


def _item_swap(
    world: Tau2World, user: Mapping[str, Any], order: Mapping[str, Any], args: Mapping[str, Any]
) -> list[Violation]:
    found: list[Violation] = []
    items = {item["item_id"]: item for item in order["items"]}
    difference = 0.0
    for old_id, new_id in zip(
        args.get("item_ids") or (), args.get("new_item_ids") or (), strict=False
    ):
        item = items.get(old_id)
        if item is None:
            continue  # the tool itself answers "item not found in the order"
        product = world.tables["products"].get(item["product_id"], {})
        variant = product.get("variants", {}).get(new_id)
        if variant is None:
            found.append(
                Violation(
                    "not_same_product",
                    f"Item {new_id} is not an option of {product.get('name', 'the product')} "
                    f"(item {old_id}); an item can only change to another option of the same "
                    "product.",
                )
            )
            continue
        if new_id == old_id:
            found.append(
                Violation(
                    "same_option",
                    f"Item {new_id} is the option already ordered; the new item must be a "
                    "different option.",
                )
            )
        if not variant.get("available"):
            found.append(
                Violation("item_unavailable", f"Item {new_id} is not available; choose another.")
            )
        difference += float(variant["price"]) - float(item["price"])
    method_id = str(args.get("payment_method_id", ""))
    method = _method(user, method_id)
    if method is None:
        return [*found, _not_on_file(user, method_id)]
    return found + _short(method_id, method, round(difference, 2), "price difference")
