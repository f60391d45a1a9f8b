"""What each domain's task-and-oracle tests share (tests/evals_<domain>/test_tasks_and_oracle.py):
a gold-replaying agent and a customer who says yes, the checks on a task's gold, and one-line
runs of the offline models. Each domain's tests call these with what is its own (how its gold
agent verifies the customer, its task ids, its faults), so every check still runs per domain.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.domains import get_domain
from evals.engine.domain import Domain
from evals.engine.faults import agent_name
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.oracle import FailureClass, evaluate, gold_state
from evals.engine.orchestrator import Orchestrator
from evals.engine.policy import PolicyGuard
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import GoldCall, Task, TaskKind

ROOT = Path(__file__).parents[2]
Call = tuple[str, Mapping[str, Any]]


class GoldAgent:
    """Test-only: knows the task. Makes its `opening` calls (verifying the customer), the
    lookups the task requires (alternative `read` of each), says what must be communicated,
    and performs each gold write: first the calls `before(write)` names (a rehearsal), then,
    where the tool needs a confirmation, a summary and `question`, waiting for the yes."""

    def __init__(
        self,
        domain: Domain,
        task: Task,
        *,
        opening: Sequence[Call],
        read: int = 0,
        before: Callable[[GoldCall], Sequence[Call]] = lambda write: (),
        question: str = "Shall I proceed?",
    ) -> None:
        self.domain = domain
        self.task = task
        self.steps: list[Call] = [*opening]
        self.steps += [(alts[read].name, alts[read].arguments) for alts in task.required_reads]
        self.writes = list(task.gold)
        self.before = before
        self.question = question
        self.calls = 0
        self.prepared = False
        self.awaiting = False

    def _call(self, name: str, args: Mapping[str, Any], text: str = "") -> Message:
        self.calls += 1
        return Message.assistant(text, (ToolCall(f"g{self.calls}", name, json.dumps(dict(args))),))

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if self.steps:
            return self._call(*self.steps.pop(0))
        facts = " ".join(alts[0] for alts in self.task.communicate)
        if not self.writes:
            return Message.assistant(f"{facts} Anything else?", signal=Signal.END)
        step = self.writes[0]
        if not self.prepared:
            self.prepared = True
            self.steps = list(self.before(step))
            if self.steps:
                return self._call(*self.steps.pop(0))
        tool = self.domain.tools[step.name]
        if tool.confirm is not None and not self.awaiting:
            self.awaiting = True
            shown = " ".join(str(step.arguments[k]) for k in tool.confirm.keys)
            return Message.assistant(
                f"{facts} To confirm, I will {tool.confirm.words[0]}: {shown}. {self.question}"
            )
        self.awaiting = self.prepared = False
        self.writes.pop(0)
        return self._call(step.name, step.arguments, facts if tool.terminal else "")


class YesUser:
    """Opens with `hello`, then says yes to everything."""

    def __init__(self, hello: str) -> None:
        self.hello = hello

    def respond(self, messages: Sequence[Message]) -> Message:
        if not any(m.role is Role.USER for m in messages):
            return Message.user(self.hello)
        return Message.user("Yes, go ahead.")


def assert_a_full_task_set(domain: Domain, *, compounds: int = 10) -> list[Task]:
    """At least 60 tasks, of every kind (action, refusal, hand-off), at least `compounds` of
    two requests or more, and a smoke split of 5, which it returns."""
    tasks = domain.tasks()
    assert len(tasks) >= 60
    assert {t.kind for t in tasks} == {TaskKind.ACTION, TaskKind.REFUSAL, TaskKind.HANDOFF}
    assert sum(len(t.intents) >= 2 for t in tasks) >= compounds
    smoke = domain.tasks("smoke")
    assert len(smoke) == 5
    return smoke


def assert_gold_path_scores_one(domain: Domain, task: Task, agent: GoldAgent, hello: str) -> None:
    """The gold path, walked in a conversation, passes the guard and scores 1.0."""
    world = domain.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=domain,
        world=world,
        agent=agent,
        user=YesUser(hello),
        guard=PolicyGuard(domain.rules),
    ).run()
    evaluation = evaluate(domain, task, trajectory, world)
    assert [v for v in trajectory.verdicts if v.violations] == []
    assert evaluation.reward == 1.0, (evaluation.failure, evaluation.diff, evaluation.notes)


def assert_gold_changes_the_state_unless_refused(domain: Domain, task: Task) -> None:
    """Replaying the gold changes the world exactly when the task is not a refusal; a refusal
    is said ("can't" first among what must be communicated)."""
    pristine = domain.fresh_world(task.world_seed).state_hash()
    assert (gold_state(domain, task).hash != pristine) is (task.kind is not TaskKind.REFUSAL)
    if task.kind is TaskKind.REFUSAL:
        assert task.communicate, "a refusal must be communicated"
        assert "can't" in task.communicate[0]


def task_id(tasks: Sequence[Task], prefix: str) -> str:
    """The first task whose name and variant (its id less domain and number) start so."""
    return next(t.id for t in tasks if t.id.split("-", 2)[2].startswith(prefix))


def run_one(
    domain: str,
    agent: str,
    task: str,
    persona: str = "baseline",
    *,
    seed: int = 0,
    trial: int = 0,
    **spec: Any,
) -> Any:
    """One trial (number `trial`) of `agent` on task id `task`, with its trajectory."""
    run_spec = RunSpec(
        domains=(domain,),
        agent=agent,
        task_ids=(task,),
        personas=(persona,),
        trials=trial + 1,
        seed=seed,
        **spec,
    )
    return run_unit(run_spec, plan(run_spec)[trial])


def run_every_task(domain: str, agent: str = "sandbox/reference", **spec: Any) -> list[Any]:
    """One trial of `agent` on every task of `domain` with a baseline customer."""
    run_spec = RunSpec(domains=(domain,), agent=agent, **{"include_trajectory": False, **spec})
    records = [run_unit(run_spec, u) for u in plan(run_spec)]
    assert len(records) == len(get_domain(domain).tasks())
    return records


def assert_fault_caught(domain: str, fault: str, task: str, failure: FailureClass | None) -> None:
    """The reference agent passes the task; with `fault` injected it scores 0 with `failure`
    (None: the class depends on where the fault lands, only the zero is checked)."""
    assert run_one(domain, "sandbox/reference", task).reward == 1.0
    record = run_one(domain, agent_name(fault), task)
    assert record.reward == 0.0
    if failure is not None:
        assert record.failure == failure.value


def assert_same_seed_same_trajectory(domain: str, task: str, persona: str) -> None:
    def messages() -> list[dict[str, Any]]:
        return run_one(domain, "sandbox/reference", task, persona, seed=3).trajectory["messages"]

    assert messages() == messages()


def tool_arguments(record: Any, name: str) -> list[dict[str, Any]]:
    """The arguments of every call to tool `name` in a trial's trajectory, in order."""
    return [
        json.loads(c["arguments"])
        for m in record.trajectory["messages"]
        for c in m.get("tool_calls", ())
        if c["name"] == name
    ]


def assistant_text(record: Any) -> str:
    return " ".join(
        m["content"]
        for m in record.trajectory["messages"]
        if m["role"] == "assistant" and m.get("content")
    )


def assert_loads_without_django(domain: str) -> None:
    """Loading the domain and its tasks in a fresh interpreter imports no Django module."""
    code = (
        "import sys\n"
        "from evals.domains import get_domain\n"
        f"get_domain({domain!r}).tasks()\n"
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith('django'))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(ROOT))
