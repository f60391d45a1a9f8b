"""The billing task generator, the gold path, the reference agent and the oracle's verdicts
on injected faults."""

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.oracle import evaluate, gold_state
from evals.engine.orchestrator import Orchestrator
from evals.engine.policy import PolicyGuard
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import Task, TaskKind

billing = get_domain("billing")
TASKS = billing.tasks()


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    assert len(TASKS) >= 60
    assert {t.kind for t in TASKS} == {TaskKind.ACTION, TaskKind.REFUSAL, TaskKind.HANDOFF}
    smoke = billing.tasks("smoke")
    assert len(smoke) == 5
    assert {TaskKind.ACTION, TaskKind.REFUSAL} <= {t.kind for t in smoke}
    assert sum(len(t.intents) >= 2 for t in TASKS) >= 10
    suffixes = {
        v
        for t in TASKS
        for v in ("email", "name-postcode", "wrong-postcode-first")
        if t.id.endswith(v)
    }
    assert suffixes == {"email", "name-postcode", "wrong-postcode-first"}


def test_refunds_come_in_zero_two_and_three_decimal_currencies_and_both_modes():
    refunds = [g.arguments for t in TASKS for g in t.gold if g.name == "request_refund"]
    decimals = {len(a["amount"].partition(".")[2]) for a in refunds}
    assert decimals == {0, 2, 3}
    assert {a["currency"] for a in refunds} == {"JPY", "EUR", "USD", "KWD", "BHD"}
    assert {a["mode"] for a in refunds} == {"live", "sandbox"}
    assert {a["approver"] for a in refunds} == {"Nadia Brooks", "Tom Becker"}
    # A partial refund: less than the charge the customer names.
    partial = [
        t
        for t in TASKS
        for g in t.gold
        if g.name == "request_refund"
        and t.scenario.data["requests"][0].get("refund")
        != t.scenario.data["requests"][0].get("amount")
    ]
    assert partial


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    pristine = billing.fresh_world(task.world_seed).state_hash()
    changed = gold_state(billing, task).hash != pristine
    assert changed == (task.kind is not TaskKind.REFUSAL)


def test_a_repeated_refund_has_exactly_one_request_in_the_gold():
    for task in TASKS:
        if "repeat" in task.intents:
            assert [g.name for g in task.gold] == ["request_refund"], task.id


class GoldAgent:
    """Test-only: knows the task. Verifies, makes the required lookups, rehearses each refund,
    says what must be communicated, and performs each gold write (summarising and waiting for
    a yes where the tool needs confirmation)."""

    def __init__(self, task: Task) -> None:
        self.task = task
        # The last alternative: get_charge by id (the gold agent knows it; a search needs facts).
        self.reads = [alternatives[-1] for alternatives in task.required_reads]
        self.steps = list(task.gold)
        self.calls = 0
        self.verified = False
        self.rehearsed = False
        self.awaiting = False

    def _call(self, name: str, args: Mapping[str, Any], text: str = "") -> Message:
        self.calls += 1
        return Message.assistant(text, (ToolCall(f"g{self.calls}", name, json.dumps(dict(args))),))

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if not self.verified:
            self.verified = True
            return self._call(
                "find_customer_by_email", {"email": self.task.scenario.data["identity"]["email"]}
            )
        if self.reads:
            read = self.reads.pop(0)
            return self._call(read.name, read.arguments)
        facts = " ".join(alts[0] for alts in self.task.communicate)
        if not self.steps:
            return Message.assistant(f"{facts} Anything else?", signal=Signal.END)
        step = self.steps[0]
        if step.name == "request_refund" and not self.rehearsed:
            self.rehearsed = True
            args = {k: step.arguments[k] for k in ("charge_id", "amount", "currency", "mode")}
            return self._call("rehearse_refund", args)
        tool = billing.tools[step.name]
        if tool.confirm is not None and not self.awaiting:
            self.awaiting = True
            shown = " ".join(str(step.arguments[k]) for k in tool.confirm.keys)
            return Message.assistant(
                f"{facts} To confirm, I will {tool.confirm.words[0]}: {shown}. Shall I proceed?"
            )
        self.awaiting = self.rehearsed = False
        self.steps.pop(0)
        return self._call(step.name, step.arguments, facts if tool.terminal else "")


class YesUser:
    def respond(self, messages: Sequence[Message]) -> Message:
        if len([m for m in messages if m.role is Role.USER]) == 0:
            return Message.user("Hello, I need help with a charge.")
        return Message.user("Yes, go ahead.")


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_path_passes_the_guard_and_scores_one(task):
    world = billing.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=billing,
        world=world,
        agent=GoldAgent(task),
        user=YesUser(),
        guard=PolicyGuard(billing.rules),
    ).run()
    evaluation = evaluate(billing, task, trajectory, world)
    assert [v for v in trajectory.verdicts if v.violations] == []
    assert evaluation.reward == 1.0, (evaluation.failure, evaluation.diff, evaluation.notes)


# -- the offline models on this domain ------------------------------------------------------


def _run(agent: str, task_id: str, persona: str = "baseline", trial: int = 0, seed: int = 0, **kw):
    spec = RunSpec(
        domains=("billing",),
        agent=agent,
        task_ids=(task_id,),
        personas=(persona,),
        trials=trial + 1,
        seed=seed,
        **kw,
    )
    return run_unit(spec, plan(spec)[trial])


def _task(name: str) -> str:
    return next(t.id for t in TASKS if t.id.split("-", 2)[2].startswith(name))


def _texts(record) -> str:
    return " ".join(
        m["content"]
        for m in record.trajectory["messages"]
        if m["role"] == "assistant" and m.get("content")
    )


def _calls(record, name: str) -> list[dict[str, Any]]:
    return [
        json.loads(c["arguments"])
        for m in record.trajectory["messages"]
        for c in m.get("tool_calls", ())
        if c["name"] == name
    ]


def test_the_reference_agent_passes_every_task_with_a_baseline_customer():
    spec = RunSpec(domains=("billing",), personas=("baseline",), include_trajectory=False)
    records = [run_unit(spec, u) for u in plan(spec)]
    assert len(records) == len(TASKS)
    # Measured 1.0 (60/60) at commit time.
    assert [r.task_id for r in records if r.reward < 1.0] == []


def test_the_reference_agent_rehearses_then_names_the_approver_and_the_time():
    record = _run("sandbox/reference", _task("refund-partial-three-decimals-email"))
    assert record.reward == 1.0
    names = [c["name"] for m in record.trajectory["messages"] for c in m.get("tool_calls", ())]
    assert names.index("rehearse_refund") < names.index("request_refund")
    (request,) = _calls(record, "request_refund")
    assert len(request["amount"].partition(".")[2]) == 3
    texts = _texts(record)
    assert "Nadia Brooks" in texts and "2 business days" in texts


def test_a_repeated_request_in_the_same_conversation_creates_one_refund():
    record = _run("sandbox/reference", _task("refund-then-repeat-email"))
    assert record.reward == 1.0
    assert len(_calls(record, "request_refund")) == 1
    assert "creates no second refund" in _texts(record)


MUTATIONS = [
    ("skip_confirmation", "refund-partial-two-decimals-email"),
    ("wrong_amount", "refund-partial-two-decimals-email"),
    ("stop_after_first", "two-charges-email"),
    ("do_nothing", "refund-partial-zero-decimals-email"),
]


@pytest.mark.parametrize(("fault", "task_prefix"), MUTATIONS)
def test_the_oracle_catches_each_injected_fault_with_its_failure_class(fault, task_prefix):
    task_id = _task(task_prefix)
    assert _run("sandbox/reference", task_id).reward == 1.0
    record = _run(agent_name(fault), task_id)
    assert record.reward == 0.0
    assert record.failure == EXPECTED[fault].value


def test_the_do_nothing_agent_and_the_blanket_refuser_score_zero_on_every_task():
    for agent in (agent_name("do_nothing"), "sandbox/adversary:blanket_refuser"):
        spec = RunSpec(domains=("billing",), agent=agent, include_trajectory=False)
        records = [run_unit(spec, u) for u in plan(spec)]
        assert len(records) == len(TASKS)
        assert [r.task_id for r in records if r.reward > 0.0] == [], agent


@pytest.mark.parametrize("persona", ["baseline", "confused", "angry-urgent"])
def test_the_same_seed_gives_an_identical_trajectory(persona):
    task_id = _task("refund+update-email-wrong-postcode-first")

    def messages(seed: int) -> list[dict[str, Any]]:
        return _run("sandbox/reference", task_id, persona, seed=seed).trajectory["messages"]

    assert messages(3) == messages(3)


def test_a_wrong_postcode_is_corrected_and_the_agent_retries():
    record = _run("sandbox/reference", _task("refund-partial-zero-decimals-wrong-postcode-first"))
    calls = _calls(record, "find_customer_by_name")
    assert len(calls) == 2 and calls[0]["postcode"] != calls[1]["postcode"]
    assert record.reward == 1.0


def test_importing_the_billing_domain_does_not_import_django():
    code = (
        "import sys; from evals.domains import get_domain; get_domain('billing').tasks(); "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
