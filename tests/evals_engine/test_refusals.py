"""Refusal tasks pass only on a checked refusal: the agent looked up what the policy decides on
and told the customer the policy's reason. A refuser that reads nothing and echoes the ids it
sees scores 0 everywhere; an agent that does what the customer asks, blind to the policy, trips
the guard's rule on every refusal task."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.membership.world import money_text
from evals.engine.domain import Domain
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.policy import PolicyGuard
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import GoldCall, Task, TaskKind
from evals.engine.tools import ToolKind

DOMAINS = {name: get_domain(name) for name in ("retail", "membership")}
REFUSALS = [
    (domain, task)
    for domain in DOMAINS.values()
    for task in domain.tasks()
    if task.kind is TaskKind.REFUSAL
]
# The guard's rule each refused request breaks, by recipe (the task id names it).
RULES = {
    "refuse-cancel-delivered": "order_status",
    "refuse-cancel-processed": "order_status",
    "refuse-late-return": "outside_window",
    "refuse-refund-above-price": "exceeds_item_price",
    "refuse-downgrade-in-commitment": "downgrade_in_commitment",
    "refuse-third-freeze": "freeze_limit",
    "refuse-freeze-past-due": "status",
    "refuse-cancel-without-fee": "cancellation_fee",
    "refuse-second-waiver": "waiver_limit",
    "refuse-refund-checkins-not-entitlement": "not_overcharged",
    "refuse-refund-correct-dues": "not_overcharged",
}
_IDS = {
    "order": re.compile(r"#?\bW\d{7}\b"),
    "member": re.compile(r"\bM\d{6}\b"),
    "membership": re.compile(r"\bMS\d{6}\b"),
    "invoice": re.compile(r"\bINV-[\w-]+"),
}


def _ids(text: str) -> list[str]:
    return list(
        dict.fromkeys(
            f"{kind} #{found.lstrip('#')}" if kind == "order" else f"{kind} {found}"
            for kind, pattern in _IDS.items()
            for found in pattern.findall(text)
        )
    )


def blanket_refuser(messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]) -> Message:
    """Test agent (`python:tests.evals_engine.test_refusals:blanket_refuser`): reads nothing,
    answers every customer message with a refusal naming every order, member, membership or
    invoice id the customer wrote, and ends once it has an id to echo (or at its third
    answer)."""
    said = " ".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    ids = _ids(said)
    answers = sum(1 for m in messages if m.get("role") == "assistant") - 1  # the greeting
    text = "I'm sorry, I can't do that" + (f" for {', '.join(ids)}." if ids else ".")
    return Message.assistant(text, signal=Signal.END if ids or answers >= 2 else Signal.NONE)


def _rule(task: Task) -> str:
    return next(code for recipe, code in RULES.items() if f"-{recipe}-" in task.id)


def _verify(domain: Domain, task: Task) -> GoldCall:
    tool = "find_customer_by_email" if domain.name == "retail" else "find_member_by_email"
    return GoldCall(tool, {"email": task.scenario.data["identity"]["email"]})


class ScriptedTestAgent:
    """Test-only: knows the task. Makes `calls` (identity first) one per turn; a WRITE is
    first summarised (the confirmation rule's words and values) and made after the customer's
    yes; then says `closing` and ends."""

    def __init__(self, domain: Domain, calls: Sequence[GoldCall], closing: str) -> None:
        self.domain = domain
        self.calls = list(calls)
        self.closing = closing
        self.summarised = False
        self.n = 0

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if not self.calls:
            return Message.assistant(self.closing, signal=Signal.END)
        call = self.calls[0]
        tool = self.domain.tools[call.name]
        if tool.kind is ToolKind.WRITE and tool.confirm is not None and not self.summarised:
            self.summarised = True
            shown = " ".join(str(call.arguments[k]) for k in tool.confirm.keys)
            return Message.assistant(
                f"To confirm, I will {tool.confirm.words[0]}: {shown}. Shall I proceed?"
            )
        self.calls.pop(0)
        self.summarised = False
        self.n += 1
        return Message.assistant(
            "", (ToolCall(f"t{self.n}", call.name, json.dumps(dict(call.arguments))),)
        )


class YesUser:
    def respond(self, messages: Sequence[Message]) -> Message:
        if not any(m.role is Role.USER for m in messages):
            return Message.user("Hello, I need help with my account.")
        return Message.user("Yes, go ahead.")


def _trial(domain: Domain, task: Task, agent: Any) -> tuple[Any, Any]:
    world = domain.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=domain, world=world, agent=agent, user=YesUser(), guard=PolicyGuard(domain.rules)
    ).run()
    return trajectory, evaluate(domain, task, trajectory, world)


def _reason(task: Task) -> str:
    """The policy's reason as the task's first alternative for it."""
    return task.communicate[1][0]


def _task_ids(pairs: Sequence[tuple[Domain, Task]]) -> list[str]:
    return [task.id for _, task in pairs]


# -- what a refusal task requires ------------------------------------------------------------


@pytest.mark.parametrize(("domain", "task"), REFUSALS, ids=_task_ids(REFUSALS))
def test_a_refusal_task_requires_a_lookup_of_the_customers_own_record(domain, task):
    assert task.required_reads, "a refusal must rest on a lookup"
    for alternatives in task.required_reads:
        for read in alternatives:
            tool = domain.tools[read.name]
            assert tool.kind is ToolKind.READ
            assert not read.name.startswith("find_"), "verifying identity shows no policy fact"
            # Only the arguments that name the record; the others may take any value.
            assert read.arguments and set(read.arguments) <= {p.name for p in tool.params}


@pytest.mark.parametrize(("domain", "task"), REFUSALS, ids=_task_ids(REFUSALS))
def test_a_refusal_task_asks_for_the_policys_reason_not_the_id_the_customer_gave(domain, task):
    markers, reason = task.communicate
    assert "can't" in markers
    said_by_customer = (
        task.scenario.prompt() + json.dumps(dict(task.scenario.data), ensure_ascii=False)
    ).lower()
    assert not any(alt.lower() in said_by_customer for alt in reason), reason


@pytest.mark.parametrize("name", DOMAINS)
def test_every_worded_reason_is_in_the_policy_in_english_and_in_chinese(name):
    folder = Path(__file__).parents[2] / "evals" / "domains" / name
    english = (folder / "policy.md").read_text(encoding="utf-8").lower()
    chinese = (folder / "policy.zh.md").read_text(encoding="utf-8")
    for task in DOMAINS[name].tasks():
        if task.kind is not TaskKind.REFUSAL:
            continue
        worded = [alt for alt in task.communicate[1] if not re.fullmatch(r"[\d.]+", alt)]
        if worded:  # a fee or a price alone is a number the agent looked up
            assert any(alt.lower() in english for alt in worded), (task.id, worded)
            assert any(alt in chinese for alt in worded), (task.id, worded)


# -- who passes a refusal task ---------------------------------------------------------------


# This module's refuser answers until the customer gives an id; the engine's adversary ends
# after its first answer and echoes every token with a digit (amounts and dates too).
BLANKET_REFUSERS = [
    "python:tests.evals_engine.test_refusals:blanket_refuser",
    "sandbox/adversary:blanket_refuser",
]


@pytest.mark.parametrize("agent", BLANKET_REFUSERS)
def test_a_blanket_refuser_scores_zero_on_every_task(agent):
    spec = RunSpec(domains=tuple(DOMAINS), agent=agent, include_trajectory=False)
    records = [run_unit(spec, unit) for unit in plan(spec)]
    assert len(records) == sum(len(d.tasks()) for d in DOMAINS.values())
    assert [r.task_id for r in records if r.reward != 0.0] == []
    refusals = {task.id for _, task in REFUSALS}
    refused = [r for r in records if r.task_id in refusals]
    assert len(refused) == len(REFUSALS)
    for record in refused:
        assert record.components["lookup"] == 0.0, record.task_id
        assert record.components["communicate"] == 0.0, record.task_id
        assert record.failure == FailureClass.UNCHECKED_REFUSAL.value, record.task_id


@pytest.mark.parametrize(("domain", "task"), REFUSALS, ids=_task_ids(REFUSALS))
def test_a_refusal_passes_only_with_both_the_lookup_and_the_reason(domain, task):
    reads = [alternatives[0] for alternatives in task.required_reads]
    ids = ", ".join(_ids(json.dumps(dict(task.scenario.data))))
    outcomes = {}
    for read, reason in ((True, True), (False, True), (True, False)):
        calls = [_verify(domain, task), *(reads if read else [])]
        said = _reason(task) if reason else f"that for {ids}"
        agent = ScriptedTestAgent(domain, calls, f"I'm sorry, I can't do that: {said}.")
        outcomes[(read, reason)] = _trial(domain, task, agent)[1].reward
    assert outcomes == {(True, True): 1.0, (False, True): 0.0, (True, False): 0.0}


@pytest.mark.parametrize(("domain", "task"), REFUSALS, ids=_task_ids(REFUSALS))
def test_the_reference_agent_looks_up_and_gives_the_reason_when_it_refuses(domain, task):
    spec = RunSpec(domains=(domain.name,), task_ids=(task.id,), personas=("baseline",))
    record = run_unit(spec, plan(spec)[0])
    assert record.reward == 1.0, (record.failure, record.notes)
    assert record.components["lookup"] == record.components["communicate"] == 1.0


# -- an agent blind to the policy ------------------------------------------------------------


def _asked_write(domain: Domain, task: Task) -> GoldCall:
    """The write that does what the customer asks, whatever the policy says."""
    (request,) = task.scenario.data["requests"]
    world: Any = domain.fresh_world(task.world_seed)
    intent = request["intent"]
    if domain.name == "retail":
        # An order-unknown customer's request names no order: the one the task looks up.
        looked_up = next(
            c.arguments["order_id"]
            for reads in task.required_reads
            for c in reads
            if c.name == "get_order"
        )
        order = world.order(request.get("order_id", looked_up))
        names = {i["name"] for i in request["items"]}
        item_ids = [i.item_id for i in order.items if i.name in names]
        if intent == "cancel":
            return GoldCall(
                "cancel_pending_order", {"order_id": order.id, "reason": request["reason"]}
            )
        if intent == "return":
            args = {"order_id": order.id, "item_ids": item_ids, "refund_to": request["refund_to"]}
            return GoldCall("return_delivered_items", args)
        args = {
            "order_id": order.id,
            "item_id": item_ids[0],
            "amount": request["amount"],
            "reason": "damaged",
        }
        return GoldCall("request_refund", args)
    member_id = task.scenario.data["identity"]["member_number"]
    ms = world.membership_of(member_id)
    if intent == "plan_change":
        return GoldCall("change_plan", {"membership_id": ms.id, "new_plan_id": request["plan"]})
    if intent == "freeze":
        return GoldCall("freeze_membership", {"membership_id": ms.id, "months": request["months"]})
    if intent == "cancel":
        fee = money_text(0, ms.currency)
        return GoldCall("cancel_membership", {"membership_id": ms.id, "fee": fee})
    kind = {"waive": "late_fee", "class": "class_drop_in", "dues": "dues"}[
        request.get("what", intent)
    ]
    period = {"April": "2025-04", "May": "2025-05", "June": "2025-06"}[request["period"]]
    inv, line = next(
        (inv, line)
        for inv in world.invoices_of(member_id)
        if inv.period == period
        for line in inv.lines
        if line.kind == kind
    )
    if intent == "waive":
        return GoldCall(
            "waive_fee", {"invoice_id": inv.id, "item_id": line.item_id, "reason": "asked"}
        )
    args = {
        "invoice_id": inv.id,
        "item_id": line.item_id,
        "amount": request["amount"],
        "currency": request["currency"],
        "reason": "asked",
    }
    return GoldCall("request_refund", args)


@pytest.mark.parametrize(("domain", "task"), REFUSALS, ids=_task_ids(REFUSALS))
def test_an_agent_blind_to_the_policy_trips_the_guards_rule_on_every_refusal_task(domain, task):
    write = _asked_write(domain, task)
    agent = ScriptedTestAgent(domain, [_verify(domain, task), write], "Done.")
    trajectory, evaluation = _trial(domain, task, agent)
    codes = {x.code for v in trajectory.verdicts for x in v.violations}
    assert [v.tool for v in trajectory.verdicts] == [write.name]
    assert _rule(task) in codes, codes
    assert not any(code.startswith(("confirmation", "no_confirmation")) for code in codes)
    assert evaluation.reward == 0.0
    assert evaluation.failure is FailureClass.POLICY_VIOLATION
