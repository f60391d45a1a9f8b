"""The τ² domains' policy guard: retail's rules (authenticate first, one customer, the order's
status checked before acting, payment methods, gift-card balance, same-product changes), the
explicit confirmation its writes declare, and mock's rules — each broken and satisfied."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.tau2_common.data import Tau2World, call_tool
from evals.engine.messages import GuardMode, Message, Signal, TerminationReason, ToolCall
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.policy import PolicyGuard
from evals.engine.tools import Actor

retail = get_domain("tau2_retail")
mock = get_domain("tau2_mock")

CHEN = "chen.johnson3889@example.com"  # chen_johnson_4204: PayPal, and a $79.00 gift card
PENDING = "#W5061109"  # Chen's, paid by PayPal: $1,319.43; holds speaker 3254583681 ($302.67)
DELIVERED = "#W5797164"  # Chen's, paid by the gift card; holds jigsaw 9237024510
SOFIAS = "#W3561391"  # another customer's pending order
CARD = "gift_card_3406421"
PAYPAL = "paypal_3742148"
SPEAKER = "3254583681"


def _world(*, email: str = CHEN, seen: Sequence[str] = (PENDING, DELIVERED)) -> Tau2World:
    """Chen authenticated (unless `email` is empty) and the orders in `seen` looked up."""
    world = retail.fresh_world(0)
    assert isinstance(world, Tau2World)
    if email:
        call_tool(retail.tools, world, "find_user_id_by_email", {"email": email})
    for order_id in seen:
        call_tool(retail.tools, world, "get_order_details", {"order_id": order_id})
    return world


def _card_balance(balance: float) -> Callable[[Tau2World], None]:
    def set_balance(world: Tau2World) -> None:
        world.edit("users", "chen_johnson_4204")["payment_methods"][CARD]["balance"] = balance

    return set_balance


def _items_modified(world: Tau2World) -> None:
    call_tool(
        retail.tools,
        world,
        "modify_pending_order_items",
        {
            "order_id": PENDING,
            "item_ids": [SPEAKER],
            "new_item_ids": ["2635605237"],
            "payment_method_id": PAYPAL,
        },
    )


def _swap(new_item: str, method: str = CARD, order_id: str = PENDING) -> dict[str, Any]:
    return {
        "order_id": order_id,
        "item_ids": [SPEAKER],
        "new_item_ids": [new_item],
        "payment_method_id": method,
    }


_ADDRESS = {
    "address1": "1 Main St",
    "address2": "",
    "city": "Houston",
    "state": "TX",
    "country": "USA",
    "zip": "77004",
}
_CANCEL = {"order_id": PENDING, "reason": "no longer needed"}

# (rule, world setup, tool, arguments that break it, arguments that satisfy it)
CASES: list[tuple[str, dict[str, Any], str, Mapping[str, Any], Mapping[str, Any]]] = [
    ("identity_not_verified", {"email": ""}, "cancel_pending_order", _CANCEL, {}),
    ("other_customer", {}, "cancel_pending_order", {**_CANCEL, "order_id": SOFIAS}, _CANCEL),
    (
        "other_customer",
        {},
        "modify_user_address",
        {"user_id": "sofia_hernandez_5364", **_ADDRESS},
        {"user_id": "chen_johnson_4204", **_ADDRESS},
    ),
    ("order_status", {}, "cancel_pending_order", {**_CANCEL, "order_id": DELIVERED}, _CANCEL),
    (
        "order_status",
        {},
        "return_delivered_order_items",
        {"order_id": PENDING, "item_ids": [SPEAKER], "payment_method_id": PAYPAL},
        {"order_id": DELIVERED, "item_ids": ["9237024510"], "payment_method_id": CARD},
    ),
    ("order_not_checked", {"seen": ()}, "cancel_pending_order", _CANCEL, _CANCEL),
    (
        "payment_method_not_on_file",
        {},
        "modify_pending_order_items",
        _swap("2635605237", "credit_card_0000000"),
        _swap("2635605237", PAYPAL),
    ),
    (
        "same_payment_method",
        {"then": _card_balance(2000.0)},
        "modify_pending_order_payment",
        {"order_id": PENDING, "payment_method_id": PAYPAL},
        {"order_id": PENDING, "payment_method_id": CARD},
    ),
    (
        "gift_card_balance",
        {},
        "modify_pending_order_payment",
        {"order_id": PENDING, "payment_method_id": CARD},
        {},
    ),
    (
        "gift_card_balance",
        {"then": _card_balance(10.0)},
        "modify_pending_order_items",
        _swap("7751905257"),  # $18.51 more than the speaker ordered
        _swap("2635605237"),  # $30.78 less: refunded to the card
    ),
    (
        "refund_method",
        {},
        "return_delivered_order_items",
        {"order_id": DELIVERED, "item_ids": ["9237024510"], "payment_method_id": PAYPAL},
        {"order_id": DELIVERED, "item_ids": ["9237024510"], "payment_method_id": CARD},
    ),
    (
        "not_same_product",
        {},
        "modify_pending_order_items",
        _swap("9237024510"),
        _swap("2635605237"),
    ),
    ("same_option", {}, "modify_pending_order_items", _swap(SPEAKER), _swap("2635605237")),
    (
        "item_unavailable",
        {},
        "modify_pending_order_items",
        _swap("5967152432"),
        _swap("2635605237"),
    ),
    (
        "not_same_product",
        {},
        "exchange_delivered_order_items",
        {
            "order_id": DELIVERED,
            "item_ids": ["9237024510"],
            "new_item_ids": [SPEAKER],
            "payment_method_id": CARD,
        },
        {
            "order_id": DELIVERED,
            "item_ids": ["9237024510"],
            "new_item_ids": ["4068787148"],
            "payment_method_id": CARD,
        },
    ),
]


def _checked(setup: Mapping[str, Any], tool: str, arguments: Mapping[str, Any]) -> list[str]:
    world = _world(**{k: v for k, v in setup.items() if k != "then"})
    if "then" in setup:
        setup["then"](world)
    return [v.code for v in retail.rules(world, tool, arguments)]


@pytest.mark.parametrize(("rule", "setup", "tool", "broken", "kept"), CASES)
def test_each_retail_rule_is_broken_by_one_call_and_kept_by_another(
    rule, setup, tool, broken, kept
):
    assert rule in _checked(setup, tool, broken)
    if kept:
        repaired = {**setup, "email": CHEN, "seen": (PENDING, DELIVERED)}
        assert _checked(repaired, tool, kept) == []


def test_a_modified_order_cannot_be_modified_or_cancelled_again():
    world = _world()
    assert retail.rules(world, "cancel_pending_order", _CANCEL) == []
    _items_modified(world)
    violations = retail.rules(world, "cancel_pending_order", _CANCEL)
    assert [v.code for v in violations] == ["order_status"]
    assert "already modified" in violations[0].message
    again = retail.rules(world, "modify_pending_order_items", _swap("7751905257", PAYPAL))
    assert [v.code for v in again] == ["order_status"]


def test_the_first_customer_located_stays_the_one_served():
    world = _world()
    call_tool(
        retail.tools,
        world,
        "find_user_id_by_name_zip",
        {"first_name": "Sofia", "last_name": "Hernandez", "zip": "98193"},
    )
    assert world.session.verified_customer_id == "chen_johnson_4204"
    call_tool(retail.tools, world, "get_order_details", {"order_id": SOFIAS})
    codes = [
        v.code for v in retail.rules(world, "cancel_pending_order", {**_CANCEL, "order_id": SOFIAS})
    ]
    assert codes == ["other_customer"]


def test_a_transfer_needs_no_authentication():
    assert retail.rules(_world(email=""), "transfer_to_human_agents", {"summary": "x"}) == []


def test_what_a_trial_established_does_not_leak_into_the_next():
    world = _world()
    assert world.session.verified_customer_id and world.shown
    fresh = retail.fresh_world(0)
    assert isinstance(fresh, Tau2World)
    assert not fresh.session.verified_customer_id and not fresh.shown
    assert world.state_hash() == fresh.state_hash()  # neither is part of the compared state


# -- the explicit-confirmation rule, declared on every write but the transfer ---------------


def test_every_retail_write_but_the_transfer_declares_what_the_customer_confirms():
    writes = [t for t in retail.tools if t.kind.value == "write" and t.actor is Actor.AGENT]
    assert {t.name for t in writes if t.confirm is None} == {"transfer_to_human_agents"}
    assert retail.tools["cancel_pending_order"].confirm.keys == ("order_id", "reason")


def _confirmed(summary: str, reply: str) -> list[str]:
    messages = [Message.assistant(summary), Message.user(reply)]
    verdict = PolicyGuard(retail.rules).check(
        world=_world(),
        tool=retail.tools["cancel_pending_order"],
        arguments=_CANCEL,
        call_id="c",
        messages=messages,
    )
    return [v.code for v in verdict.violations]


@pytest.mark.parametrize(
    ("summary", "reply", "codes"),
    [
        (f"I will cancel order {PENDING}, reason: no longer needed. Proceed?", "Yes.", []),
        ("", "Yes.", ["no_confirmation"]),
        (
            f"I will cancel order {PENDING}, reason: no longer needed. Proceed?",
            "No, wait.",
            ["no_confirmation"],
        ),
        (f"I will cancel order {PENDING}. Proceed?", "Yes.", ["confirmation_arguments_differ"]),
        (f"Order {PENDING} is pending. Anything else?", "Yes.", ["confirmation_wrong_action"]),
    ],
)
def test_a_cancellation_needs_the_customers_yes_to_a_summary_of_it(summary, reply, codes):
    assert _confirmed(summary, reply) == codes


# -- the orchestrator: the unauthenticated, unconfirmed cancellation --------------------------


class _Canceller:
    """Cancels the order the customer names at once: no authentication, no confirmation."""

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if messages[-1].role.value == "tool":
            return Message.assistant("Your order is cancelled.")
        call = ToolCall("c1", "cancel_pending_order", json.dumps(_CANCEL))
        return Message.assistant("", (call,))


class _Customer:
    def __init__(self) -> None:
        self.spoke = False

    def respond(self, messages: Sequence[Message]) -> Message:
        if self.spoke:
            return Message.user("Thanks.", Signal.STOP)
        self.spoke = True
        return Message.user(f"Cancel order {PENDING}, I no longer need it.")


@pytest.mark.parametrize("mode", [GuardMode.ENFORCE, GuardMode.OBSERVE])
def test_an_unauthenticated_unconfirmed_cancellation_records_both_violations(mode):
    world = retail.fresh_world(0)
    trajectory = Orchestrator(
        domain=retail,
        world=world,
        agent=_Canceller(),
        user=_Customer(),
        guard=PolicyGuard(retail.rules, mode),
    ).run()
    assert trajectory.termination is TerminationReason.USER_STOP
    (verdict,) = trajectory.verdicts
    codes = {v.code for v in verdict.violations}
    # The customer's last message answers the greeting, which summarised no cancellation.
    assert {"identity_not_verified", "confirmation_wrong_action"} <= codes
    status = world.tables["orders"][PENDING]["status"]
    if mode is GuardMode.ENFORCE:
        assert verdict.blocked and status == "pending"
        result = next(m for m in trajectory.messages if m.role.value == "tool")
        assert result.error and "Authenticate the customer first" in result.content
    else:
        assert not verdict.blocked and status == "cancelled"
    task = next(t for t in retail.tasks() if [g.name for g in t.gold] == ["cancel_pending_order"])
    assert evaluate(retail, task, trajectory, world).failure is FailureClass.POLICY_VIOLATION


# -- τ² mock ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "codes"),
    [
        ({"user_id": "user_1", "title": "Important Meeting"}, []),
        ({"user_id": "user_1", "title": "  "}, ["missing_title"]),
        ({"user_id": "user_9", "title": "Important Meeting"}, ["unknown_user"]),
    ],
)
def test_mock_tasks_need_a_title_and_an_existing_user(arguments, codes):
    assert [v.code for v in mock.rules(mock.fresh_world(0), "create_task", arguments)] == codes


def test_mock_status_changes_and_transfers_have_no_rule_and_no_confirmation():
    world = mock.fresh_world(0)
    arguments = {"task_id": "task_1", "status": "completed"}
    assert mock.rules(world, "update_task_status", arguments) == []
    assert all(t.confirm is None for t in mock.tools)
