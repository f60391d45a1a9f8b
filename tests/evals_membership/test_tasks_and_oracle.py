import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.oracle import FailureClass, evaluate, gold_state
from evals.engine.orchestrator import Orchestrator
from evals.engine.policy import PolicyGuard
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import Task, TaskKind

membership = get_domain("membership")
TASKS = membership.tasks()


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    assert len(TASKS) >= 60
    assert {t.kind for t in TASKS} == {TaskKind.ACTION, TaskKind.REFUSAL, TaskKind.HANDOFF}
    assert len(membership.tasks("smoke")) == 5
    assert sum(len(t.intents) >= 2 for t in TASKS) >= 10
    suffixes = {
        v for t in TASKS for v in ("email", "number-dob", "wrong-dob-first") if t.id.endswith(v)
    }
    assert suffixes == {"email", "number-dob", "wrong-dob-first"}
    variants = {t.scenario.data["identity"]["gives"] for t in TASKS}
    assert variants == {"email", "number"}
    assert any(t.scenario.data["identity"]["wrong_dob"] for t in TASKS)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    pristine = membership.fresh_world(task.world_seed).state_hash()
    changed = gold_state(membership, task).hash != pristine
    assert changed is (task.kind is not TaskKind.REFUSAL)
    if task.kind is TaskKind.REFUSAL:
        assert task.communicate, "a refusal must be communicated"
        assert "can't" in task.communicate[0]
    if task.kind is TaskKind.HANDOFF:
        assert task.handoff_category == "dispute"


def test_every_change_is_followed_by_a_notification_and_a_note_in_the_gold():
    for task in TASKS:
        names = [g.name for g in task.gold]
        changes = [
            n for n in names if n not in ("notify_customer", "add_note", "transfer_to_human")
        ]
        assert names.count("notify_customer") == len(changes) == names.count("add_note"), task.id


# -- a gold-replaying agent: proves the gold path passes the guard and scores 1.0 -----------


class GoldAgent:
    """Test-only: knows the task. Verifies, makes the lookups the task requires, says what must
    be communicated, and performs each gold write (summarising and waiting for a yes where the
    tool needs confirmation)."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.reads = [alternatives[0] for alternatives in task.required_reads]
        self.steps = list(task.gold)
        self.calls = 0
        self.verified = False
        self.told = False
        self.awaiting = False

    def _call(self, name: str, args: Mapping[str, Any], text: str = "") -> Message:
        self.calls += 1
        return Message.assistant(text, (ToolCall(f"g{self.calls}", name, json.dumps(dict(args))),))

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if not self.verified:
            self.verified = True
            return self._call(
                "find_member_by_email", {"email": self.task.scenario.data["identity"]["email"]}
            )
        if self.reads:
            read = self.reads.pop(0)
            return self._call(read.name, read.arguments)
        facts = " ".join(alts[0] for alts in self.task.communicate)
        if not self.steps:
            return Message.assistant(f"{facts} Anything else?", signal=Signal.END)
        step = self.steps[0]
        tool = membership.tools[step.name]
        if tool.confirm is not None and not self.awaiting:
            self.awaiting = True
            shown = " ".join(str(step.arguments[k]) for k in tool.confirm.keys)
            return Message.assistant(
                f"{facts} To confirm, I will {tool.confirm.words[0]}: {shown}. Shall I proceed?"
            )
        self.awaiting = False
        self.steps.pop(0)
        return self._call(step.name, step.arguments, facts if tool.terminal else "")


class YesUser:
    def respond(self, messages: Sequence[Message]) -> Message:
        if len([m for m in messages if m.role is Role.USER]) == 0:
            return Message.user("Hello, I need help with my membership.")
        return Message.user("Yes, go ahead.")


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_path_passes_the_guard_and_scores_one(task):
    world = membership.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=membership,
        world=world,
        agent=GoldAgent(task),
        user=YesUser(),
        guard=PolicyGuard(membership.rules),
    ).run()
    evaluation = evaluate(membership, task, trajectory, world)
    assert [v for v in trajectory.verdicts if v.violations] == []
    assert evaluation.reward == 1.0, (evaluation.failure, evaluation.diff, evaluation.notes)


# -- the offline models on this domain ------------------------------------------------------


def _run(agent: str, task_id: str, persona: str = "baseline", trial: int = 0, seed: int = 0):
    spec = RunSpec(
        domains=("membership",),
        agent=agent,
        task_ids=(task_id,),
        personas=(persona,),
        trials=trial + 1,
        seed=seed,
    )
    return run_unit(spec, plan(spec)[trial])


def _task(prefix: str) -> str:
    return next(t.id for t in TASKS if t.id.split("-", 2)[2].startswith(prefix))


def test_the_reference_agent_scores_high_on_every_task_with_a_baseline_member():
    spec = RunSpec(domains=("membership",), personas=("baseline",), include_trajectory=False)
    records = [run_unit(spec, u) for u in plan(spec)]
    assert len(records) == len(TASKS)
    assert not [r for r in records if r.termination in ("agent_error", "infrastructure_error")]
    # Measured 1.0 (72/72) at commit time; the bound leaves room for honest regressions only.
    assert sum(r.reward for r in records) / len(records) >= 0.95
    assert all(r.reward == 1.0 for r in records if "smoke" in membership.task(r.task_id).splits)


def test_the_reference_agent_refuses_the_check_in_trap_and_says_why():
    record = _run("sandbox/reference", _task("refuse-refund-checkins-not-entitlement-email"))
    assert record.reward == 1.0
    texts = " ".join(
        m["content"]
        for m in record.trajectory["messages"]
        if m["role"] == "assistant" and m.get("content")
    )
    assert "Check-ins are visit logs, not entitlements" in texts
    assert not any(
        c["name"] == "request_refund"
        for m in record.trajectory["messages"]
        for c in m.get("tool_calls", ())
    )


# One task per fault where the fault shows; each must be caught with its failure class.
# wrong_order: the membership agent checks the status before a plan change, so reversing
# "unfreeze, then upgrade" makes it refuse the upgrade itself (the membership is still frozen)
# and leave it undone: its writes are exactly the gold's unfreeze chain, the plan change and
# its notify/add_note never happen — an omission as far as the writes show (the reversed
# order is only in its words). The follow-ups sharing tool names with the unfreeze's are not
# read as wrong arguments any more.
MUTATIONS = [
    ("skip_confirmation", "upgrade-premium-email", EXPECTED["skip_confirmation"]),
    ("wrong_amount", "refund-duplicate-dues-email", EXPECTED["wrong_amount"]),
    ("wrong_item", "refund-duplicate-dues-email", EXPECTED["wrong_item"]),
    ("stop_after_first", "refund-duplicate+guest-passes-email", EXPECTED["stop_after_first"]),
    ("wrong_order", "unfreeze-then-upgrade-email", FailureClass.OMISSION),
    ("do_nothing", "freeze-two-months-email", EXPECTED["do_nothing"]),
]


@pytest.mark.parametrize(("fault", "task_prefix", "failure"), MUTATIONS)
def test_the_oracle_catches_each_injected_fault_with_its_failure_class(fault, task_prefix, failure):
    task_id = _task(task_prefix)
    assert _run("sandbox/reference", task_id).reward == 1.0
    record = _run(agent_name(fault), task_id)
    assert record.reward == 0.0
    assert record.failure == failure.value


def test_the_do_nothing_agent_scores_zero_on_every_task():
    spec = RunSpec(
        domains=("membership",), agent=agent_name("do_nothing"), include_trajectory=False
    )
    records = [run_unit(spec, u) for u in plan(spec)]
    assert len(records) == len(TASKS)
    assert all(r.reward == 0.0 for r in records)


def test_a_failed_state_comes_with_a_readable_diff():
    record = _run(agent_name("do_nothing"), _task("unfreeze-email"))
    assert any("status: expected 'active', got 'frozen'" in line for line in record.diff)


@pytest.mark.parametrize("persona", ["baseline", "confused", "angry-urgent"])
def test_the_same_seed_gives_an_identical_trajectory(persona):
    task_id = _task("waive-late-fee+cancel-with-fee-wrong-dob-first")

    def messages(seed: int) -> list[dict[str, Any]]:
        return _run("sandbox/reference", task_id, persona, seed=seed).trajectory["messages"]

    assert messages(3) == messages(3)


def test_different_seeds_vary_the_members_phrasing():
    task_id = _task("upgrade-premium-email")
    openings = {
        _run("sandbox/reference", task_id, seed=s).trajectory["messages"][2]["content"]
        for s in range(8)
    }
    assert len(openings) > 1


def test_a_wrong_date_of_birth_is_corrected_and_the_agent_retries():
    record = _run("sandbox/reference", _task("refund-duplicate-dues-wrong-dob-first"))
    calls = [
        c
        for m in record.trajectory["messages"]
        for c in m.get("tool_calls", ())
        if c["name"] == "find_member_by_number"
    ]
    assert len(calls) == 2
    assert (
        json.loads(calls[0]["arguments"])["date_of_birth"]
        != json.loads(calls[1]["arguments"])["date_of_birth"]
    )
    assert record.reward == 1.0


def test_importing_the_membership_domain_does_not_import_django():
    code = (
        "import sys\n"
        "from evals.domains import get_domain\n"
        "d = get_domain('membership'); d.tasks()\n"
        "assert 'django' not in sys.modules, sorted(m for m in sys.modules if m.startswith('django'))\n"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=str(__import__("pathlib").Path(__file__).parents[2]),
    )
