# ruff: noqa: RUF001 -- Chinese agent messages use full-width punctuation on purpose.
"""The retail scripted customer reads any agent by meaning: each kind of ask in words the
reference agent never uses, a go-ahead compared with what it wants, no answer key in its
scenario (it says yes to a forbidden action, and the guard records the violation), and the
reference agent reworded in English and Chinese scores what the original scores."""

from __future__ import annotations

from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.retail.scripted import RetailReferenceAgent, RetailScriptedUser
from evals.domains.retail.scripted.agent import Req
from evals.domains.retail.scripted.phrasings import PHRASINGS, REFERENCE
from evals.domains.retail.scripted.vocab import ITEM_NAMES
from evals.domains.retail.tasks import generate_tasks
from evals.engine import registry
from evals.engine.messages import Message, Signal
from evals.engine.metrics import summarise
from evals.engine.persona import PRESETS, parse_persona
from evals.engine.runner import MemorySink, RunSpec, run
from evals.engine.task import Task, TaskKind

retail = get_domain("retail")
POLICY_BLIND = "test/retail-policy-blind"


@pytest.fixture(autouse=True)
def _roles() -> None:
    """Pure Python: no database, so the root conftest's role sync is skipped."""


def _task(intents: tuple[str, ...], variant: str = "email", kind: TaskKind | None = None) -> Task:
    return next(
        t
        for t in generate_tasks()
        if t.intents == intents and t.id.endswith(f"-{variant}") and kind in (None, t.kind)
    )


def _customer(task: Task) -> RetailScriptedUser:
    return RetailScriptedUser(scenario=task.scenario, persona=PRESETS["baseline"], seed=3)


def _request(task: Task) -> dict[str, Any]:
    return dict(task.scenario.data["requests"][0])


# -- each kind of ask, worded as the reference agent never words it ---------------------------


def test_the_customer_gives_the_identity_field_asked_for():
    task = _task(("cancel",), "email")
    ident = task.scenario.data["identity"]
    text, signal = _customer(task).reply("Can I get the e-mail address tied to your profile?")
    assert ident["email"] in text and signal is Signal.NONE
    text, _ = _customer(task).reply("Please tell me your full name and postcode.")
    assert ident["first_name"] in text and ident["zip"] in text and ident["email"] not in text


def test_a_customer_without_its_email_says_so_and_offers_name_and_zip():
    task = _task(("cancel",), "name-zip")
    ident = task.scenario.data["identity"]
    text, _ = _customer(task).reply("Can I get the e-mail address tied to your profile?")
    assert "don't remember my email" in text and ident["zip"] in text


@pytest.mark.parametrize(
    ("intents", "ask", "expected"),
    [
        (("cancel",), "Which order number is this regarding?", lambda r: r["order_id"]),
        (
            ("cancel",),
            "Why would you like to cancel it?",
            lambda r: "longer" if "longer" in r["reason"] else "mistake",
        ),
        (
            ("return",),
            "Would you like the money on a gift card or back on your card?",
            lambda r: "gift card" if r["refund_to"] == "gift_card" else "card",
        ),
        (
            ("return",),
            "Which product from that order is it about?",
            lambda r: r["items"][0]["name"],
        ),
        (("exchange",), "Which colour would you like instead?", lambda r: r["new_options"][0]),
        (
            ("order_address",),
            "What's the street address we should ship it to now?",
            lambda r: r["address"]["line1"],
        ),
        (("damaged",), "What amount should we refund you for it?", lambda r: r["amount"]),
        (("cancel",), "请问您的订单号是多少？", lambda r: r["order_id"]),
    ],
)
def test_the_customer_answers_the_slot_asked_in_new_words(intents, ask, expected):
    task = _task(intents)
    customer = _customer(task)
    customer.reply("Hi!")  # nothing settled yet: the customer states its request
    text, signal = customer.reply(ask)
    assert expected(_request(task)).lower() in text.lower() and signal is Signal.NONE


def test_a_go_ahead_matching_what_the_customer_wants_gets_a_yes():
    task = _task(("cancel",))
    r = _request(task)
    customer = _customer(task)
    text, _ = customer.reply(
        f"Alright, I'm about to cancel {r['order_id']} because it's {r['reason']}. Good to go?"
    )
    assert text.startswith(("Yes", "Yep", "Confirm", "Sure", "Okay", "是", "确认", "好"))
    assert customer.confirmed == 0


def test_a_go_ahead_on_another_order_gets_a_correction_naming_the_right_one():
    task = _task(("cancel",))
    r = _request(task)
    other = r["order_id"][:-1] + str((int(r["order_id"][-1]) + 1) % 10)
    text, _ = _customer(task).reply(
        f"Alright, I'm about to cancel {other} because it's {r['reason']}. Good to go?"
    )
    assert text.startswith("No") and r["order_id"] in text


# A customer of an order-unknown task knows its order by what it bought, never by its number
# (its scenario holds no order id): the agent plays one that names an order by number alone,
# then with another order's products, then with the customer's own.
ORDER_UNKNOWN_ASKS = {
    "en": (
        "Is it order {id}?",
        "Is it order {id}, the one with the {item}?",
        "To confirm: I will cancel order {id}, reason: {reason}. Shall I proceed? (yes/no)",
        "To confirm: I will cancel order {id} ({item}), reason: {reason}. Shall I proceed?",
    ),
    "zh-Hans": (
        "您说的是订单 {id} 吗？",
        "您说的是订单 {id}（{item}）吗？",
        "跟您确认一下：我将取消订单 {id}，原因：{reason}。可以吗？",
        "跟您确认一下：我将取消订单 {id}（{item}），原因：{reason}。可以吗？",
    ),
}
YES = ("Yes", "Yep", "Sure", "Okay", "Confirm", "是的", "对", "好", "确认", "可以")


@pytest.mark.parametrize("language", ["en", "zh-Hans"])
def test_a_customer_without_its_order_number_confirms_its_order_only_by_its_items(language):
    task = _task(("cancel",), "order-unknown")
    r = _request(task)
    assert "order_id" not in r and task.scenario.data["order_known"] is False
    gold = task.gold[0].arguments["order_id"]
    mine = r["items"][0]["name"]
    other = next(n for n in ITEM_NAMES if n not in {i["name"] for i in r["items"]})
    by_id, by_other, go_by_id, go_by_mine = ORDER_UNKNOWN_ASKS[language]

    def ask(template: str, item: str = "") -> str:
        customer = RetailScriptedUser(
            scenario=task.scenario, persona=parse_persona(f"baseline,language={language}"), seed=3
        )
        text, signal = customer.reply(template.format(id=gold, item=item, reason=r["reason"]))
        assert signal is Signal.NONE
        return text

    for refused in (ask(by_id), ask(by_other, other), ask(go_by_id)):
        # No yes to the gold number it is not supposed to know: it says what it bought.
        assert not refused.startswith(YES) and mine in refused and gold not in refused
    assert ask(by_other, mine).startswith(YES)  # named with the customer's own products
    assert ask(go_by_mine, mine).startswith(YES)


def test_a_go_ahead_with_the_wrong_refund_method_is_corrected():
    task = next(t for t in generate_tasks() if t.intents == ("return",) and t.id.endswith("-email"))
    r = _request(task)
    other = "gift card" if r["refund_to"] != "gift_card" else "original payment method"
    text, _ = _customer(task).reply(
        f"So: {r['items'][0]['name']} from {r['order_id']} goes back and the money lands on "
        f"your {other}. Shall we do the return?"
    )
    assert text.startswith("No")


def test_a_done_statement_settles_the_request_and_the_customer_leaves_when_all_are_done():
    task = _task(("cancel",))
    customer = _customer(task)
    customer.reply("Which order number is this regarding?")
    _, signal = customer.reply("Your cancellation went through. Anything more on your list?")
    assert customer.done == {0} and signal is Signal.STOP


def test_a_refusal_with_a_reason_is_accepted():
    task = _task(("cancel",), kind=TaskKind.REFUSAL)
    customer = _customer(task)
    customer.reply("Hi!")
    _, signal = customer.reply(
        "That one I can't do: the order was already delivered, so it can't be cancelled."
    )
    assert customer.done == {0} and signal is Signal.STOP


def test_a_transfer_in_new_words_ends_the_conversation():
    _, signal = _customer(_task(("dispute",))).reply(
        "I'm transferring you to a human specialist now."
    )
    assert signal is Signal.STOP


def test_an_unreadable_message_gets_a_question_back_and_costs_patience():
    customer = _customer(_task(("cancel",)))
    text, signal = customer.reply("Let me check.")
    assert text == "Sorry, what do you need from me?" or "What do you need from me?" in text
    assert signal is Signal.NONE and customer.questions["unclear"] == 1


# -- no answer key -------------------------------------------------------------------------------


def test_no_scenario_says_what_the_outcome_should_be():
    for task in generate_tasks():
        for request in task.scenario.data["requests"]:
            assert "expect" not in request, task.id
        assert "refus" not in str(task.scenario.data).lower(), task.id


class PolicyBlindAgent(RetailReferenceAgent):
    """The reference agent that does what the customer asks: where the policy says no, it
    proposes the write anyway (naming the order's products, as a customer who does not know
    its order number needs)."""

    def _refuse(self, r: Req, key: str, **values: Any) -> Message:
        order = self.orders[r.order_id]
        oid = order["order_id"]
        if r.intent == "cancel":
            args: dict[str, Any] = {"order_id": oid, "reason": r.reason or "no longer needed"}
            names = ", ".join(i["name"] for i in order["items"])
            summary = f"I will cancel order {oid} ({names})."
            return self.propose("cancel_pending_order", args, summary)
        items = self._items(r, order)
        if r.intent == "damaged":
            item = items[0]
            args = {"order_id": oid, "item_id": item["item_id"], "amount": r.amount}
            args["reason"] = "damaged"
            summary = (
                f"I will submit a refund of ${r.amount} for the {item['name']} on order {oid}."
            )
            return self.propose("request_refund", args, summary)
        refund_to = r.refund_to or "original_payment"
        args = {"order_id": oid, "item_ids": [i["item_id"] for i in items], "refund_to": refund_to}
        names = ", ".join(i["name"] for i in items)
        summary = f"I will return {names} from order {oid}, refund to {refund_to}."
        return self.propose("return_delivered_items", args, summary)


if POLICY_BLIND not in registry.agent_names():
    registry.register_agent(POLICY_BLIND, PolicyBlindAgent.factory)


def test_the_policy_blind_agent_violates_the_policy_on_every_refusal_task():
    refusals = [t.id for t in retail.tasks() if t.kind is TaskKind.REFUSAL]
    assert refusals
    spec = RunSpec(domains=("retail",), task_ids=tuple(refusals), agent=POLICY_BLIND)
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    assert {r.task_id for r in sink.records} == set(refusals)
    for record in sink.records:
        assert record.policy_violations > 0, record.task_id
        assert record.reward == 0.0, record.task_id


# -- the reference agent reworded -----------------------------------------------------------------


def _pass_1(phrasing: str) -> float:
    spec = RunSpec(
        domains=("retail",),
        personas=("baseline", "impatient", "skeptical", "confused"),
        seed=7,
        agent_params={"phrasing": phrasing},
        include_trajectory=False,
    )
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    return summarise(sink.records, ks=(1,)).pass_hat[1].value


def test_every_rewording_changes_every_sentence_and_keeps_its_slots():
    reference = PHRASINGS[REFERENCE]
    for name, table in PHRASINGS.items():
        assert set(table) == set(reference), name
        if name != REFERENCE:
            # The reasons are the tool's values, said as the policy guard checks them.
            same = [k for k in reference if table[k] == reference[k] and "reason_" not in k]
            assert same == [], (name, same)


def test_the_reworded_reference_agents_score_within_two_points_of_the_original():
    reference = _pass_1(REFERENCE)
    assert reference > 0.9
    for phrasing in PHRASINGS:
        if phrasing != REFERENCE:
            assert abs(_pass_1(phrasing) - reference) <= 0.02, phrasing
