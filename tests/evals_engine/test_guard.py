# ruff: noqa: RUF001 -- Chinese replies use full-width punctuation on purpose.
import pytest

from evals.domains import get_domain
from evals.engine.messages import GuardMode, Message
from evals.engine.policy import PolicyGuard, check_confirmation
from evals.engine.understanding.answers import read_answer

retail = get_domain("retail")


@pytest.mark.parametrize(
    "text",
    [
        "yes",
        "Yeah, go ahead.",
        "Confirm.",
        "Please do.",
        "ok, proceed",
        "是的",
        "确认",
        "好的，可以。",
        "可以",
        "没问题",
    ],
)
def test_it_recognises_affirmations_in_english_and_chinese(text):
    assert read_answer(text).confirms


@pytest.mark.parametrize(
    "text",
    [
        "no",
        "No, don't do that.",
        "don't",
        "yes but change the amount to 20",
        "Yes, but make it the blue one instead.",
        "wait",
        "不要",
        "不",
        "不可以",
        "是的，但是改成20",
        "Why do you need that?",
    ],
)
def test_it_rejects_negations_and_change_requests(text):
    assert not read_answer(text).confirms


SUMMARY = "To confirm: I will submit a refund request of $12.50 for the damaged lamp on order #W1234567. Shall I proceed?"


def test_it_accepts_a_yes_to_the_summarised_values():
    assert (
        check_confirmation(
            summary=SUMMARY,
            reply="Yes.",
            words=("refund",),
            key_values={"order_id": "#W1234567", "amount": "12.50"},
        )
        is None
    )


def test_it_rejects_a_write_whose_amount_differs_from_the_confirmed_one():
    v = check_confirmation(
        summary=SUMMARY,
        reply="Yes.",
        words=("refund",),
        key_values={"order_id": "#W1234567", "amount": "13.50"},
    )
    assert v is not None and v.code == "confirmation_arguments_differ"


def test_it_rejects_a_yes_that_names_another_amount():
    v = check_confirmation(
        summary=SUMMARY,
        reply="yes, $20",
        words=("refund",),
        key_values={"order_id": "#W1234567", "amount": "12.50"},
    )
    assert v is not None and v.code == "confirmation_arguments_differ"


def test_it_rejects_a_write_without_any_summary():
    v = check_confirmation(summary="", reply="yes", words=("refund",), key_values={})
    assert v is not None and v.code == "no_confirmation"


def test_it_rejects_a_summary_of_another_action():
    v = check_confirmation(
        summary="I will cancel order #W1234567. OK?", reply="yes", words=("refund",), key_values={}
    )
    assert v is not None and v.code == "confirmation_wrong_action"


def _setup(verified: bool):
    world = retail.fresh_world(0)
    order = next(
        o
        for o in world.tables["orders"].values()
        if o.status == "delivered" and o.days_since_delivery < 30
    )
    if verified:
        world.session.verified_customer_id = order.customer_id
    item = order.items[0]
    amount = f"{item.price // 100}.{item.price % 100:02d}"
    args = {"order_id": order.id, "item_id": item.item_id, "amount": amount, "reason": "damaged"}
    summary = f"I will submit a refund request of ${amount} for item {item.item_id} on order {order.id}. Shall I proceed?"
    return world, args, summary


def _check(guard, world, args, messages):
    return guard.check(
        world=world,
        tool=retail.tools["request_refund"],
        arguments=args,
        call_id="c",
        messages=messages,
    )


def test_the_guard_blocks_a_write_without_confirmation_in_enforce_mode():
    world, args, summary = _setup(verified=True)
    messages = [Message.assistant(summary), Message.user("Why do I have to confirm?")]
    verdict = _check(PolicyGuard(retail.rules, GuardMode.ENFORCE), world, args, messages)
    assert verdict.blocked and [v.code for v in verdict.violations] == ["no_confirmation"]


def test_the_guard_records_but_lets_through_in_observe_mode():
    world, args, summary = _setup(verified=True)
    messages = [Message.assistant(summary), Message.user("no")]
    verdict = _check(PolicyGuard(retail.rules, GuardMode.OBSERVE), world, args, messages)
    assert not verdict.blocked and verdict.violations


def test_the_guard_blocks_a_write_before_identity_is_verified():
    world, args, summary = _setup(verified=False)
    messages = [Message.assistant(summary), Message.user("yes")]
    verdict = _check(PolicyGuard(retail.rules), world, args, messages)
    assert verdict.blocked and verdict.violations[0].code == "identity_not_verified"


def test_the_guard_passes_a_confirmed_write_within_the_rules():
    world, args, summary = _setup(verified=True)
    messages = [Message.assistant(summary), Message.user("是的，确认")]
    verdict = _check(PolicyGuard(retail.rules), world, args, messages)
    assert verdict.ok and not verdict.blocked


def test_the_guard_applies_the_payments_refund_rules():
    world, args, summary = _setup(verified=True)
    order = world.tables["orders"][args["order_id"]]
    too_much = f"{(order.captured + 100) // 100}.{(order.captured + 100) % 100:02d}"
    args = {**args, "amount": too_much}
    messages = [
        Message.assistant(summary.replace(summary.split("$")[1].split(" ")[0], too_much)),
        Message.user("yes"),
    ]
    codes = [v.code for v in _check(PolicyGuard(retail.rules), world, args, messages).violations]
    assert "exceeds_refundable" in codes and "exceeds_item_price" in codes
