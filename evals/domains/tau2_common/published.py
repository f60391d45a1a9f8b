"""τ²-bench's own reward for a trial, by τ²-bench's definition, computed on our world and
trajectory so a report can show it beside ours (`Domain.published_reward`); it never enters
our reward. Our code, following the definition of τ²'s evaluator:

- The reward is the product of the criteria in the task's `reward_basis` (τ²'s default when
  a task names none: DB and COMMUNICATE). A trial that did not end with a stop scores 0
  ("terminated prematurely": a limit reached, an agent error); a transfer to a human and a
  customer who leaves end with a stop in τ² (the customer's stop token).
- DB: the agent's side equals the gold replay, and the customer's side equals its start plus
  the gold actions the customer makes — τ² compares both databases, so a customer's own
  write that its gold actions do not hold fails it (mock's `update_task_with_user_tools`).
  A task with neither actions nor env assertions passes it.
- ENV_ASSERTION: every env assertion holds on the final world.
- COMMUNICATE: every `communicate_info` string is in one of the agent's messages (lower case,
  commas removed from the message).
- ACTION: the share of the gold actions, reads included, matched by a tool call of the agent
  or the customer: same name, same values of the action's `compare_args` (without them, of
  every argument the call passed).
- NL_ASSERTION: the judge's verdict on the `nl_assertions` (None until a judge gives it;
  1 when the task has none).

Our own reward differs on purpose: it adds no policy violation, the required lookups, and
scores 0 a trial the customer abandoned.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from evals.domains.tau2_common.data import call_tool, read_json
from evals.engine.domain import Domain
from evals.engine.errors import ToolError
from evals.engine.messages import Role, TerminationReason, Trajectory
from evals.engine.oracle import gold_state
from evals.engine.task import Task
from evals.engine.world import World

_DEFAULT_BASIS = ("DB", "COMMUNICATE")
_STOPS = {
    TerminationReason.USER_STOP,
    TerminationReason.AGENT_END,
    TerminationReason.TRANSFER_TO_HUMAN,
    TerminationReason.USER_ABANDON,
}

PublishedReward = Callable[[Domain, Task, Trajectory, World], dict[str, float | None]]


@cache
def _criteria(folder: str) -> dict[str, Mapping[str, Any]]:
    return {
        str(raw["id"]): raw.get("evaluation_criteria") or {}
        for raw in read_json(folder, "tasks.json")
    }


def published_reward(folder: str) -> PublishedReward:
    """The hook for the τ² domain whose data is in `folder` ("retail", "mock")."""

    def reward(
        domain: Domain, task: Task, trajectory: Trajectory, world: World
    ) -> dict[str, float | None]:
        criteria = _criteria(folder).get(task.id)
        if not criteria:
            return {}
        if trajectory.termination not in _STOPS:
            return {"termination": 0.0}
        basis = criteria.get("reward_basis")
        basis = _DEFAULT_BASIS if basis is None else tuple(basis)
        checks: dict[str, Callable[[], float | None]] = {
            "DB": lambda: _db(domain, task, criteria, world),
            "ENV_ASSERTION": lambda: float(all(domain.check(world, a) for a in task.assertions)),
            "COMMUNICATE": lambda: _communicate(criteria, trajectory),
            "ACTION": lambda: _action(criteria, trajectory),
            "NL_ASSERTION": lambda: None if criteria.get("nl_assertions") else 1.0,
        }
        return {name: checks[name]() for name in dict.fromkeys(basis) if name in checks}

    return reward


def _db(domain: Domain, task: Task, criteria: Mapping[str, Any], world: World) -> float:
    if criteria.get("actions") is None and criteria.get("env_assertions") is None:
        return 1.0
    if world.state_hash() != gold_state(domain, task).hash:
        return 0.0
    customer = world.user_canonical()
    if not customer:
        return 1.0
    expected = domain.fresh_world(task.world_seed)
    for action in criteria.get("actions") or ():
        if action.get("requestor") == "user":
            try:
                call_tool(domain.tools, expected, action["name"], action.get("arguments") or {})
            except ToolError:
                continue  # τ²'s replay skips a gold action that fails
    return float(customer == expected.user_canonical())


def _communicate(criteria: Mapping[str, Any], trajectory: Trajectory) -> float:
    said = [text.lower().replace(",", "") for text in trajectory.agent_texts()]
    wanted = [str(info).lower() for info in criteria.get("communicate_info") or ()]
    return float(all(any(info in text for text in said) for info in wanted))


def _action(criteria: Mapping[str, Any], trajectory: Trajectory) -> float:
    actions: Sequence[Mapping[str, Any]] = criteria.get("actions") or ()
    if not actions:
        return 1.0
    calls = []
    for message in trajectory.messages:
        if message.role not in (Role.ASSISTANT, Role.USER):
            continue
        for call in message.tool_calls:
            try:
                arguments = json.loads(call.arguments or "{}")
            except ValueError:
                continue
            if isinstance(arguments, dict):
                calls.append((call.name, arguments))
    matched = sum(1 for a in actions if any(_matches(a, n, args) for n, args in calls))
    return matched / len(actions)


def _matches(action: Mapping[str, Any], name: str, arguments: Mapping[str, Any]) -> bool:
    if action["name"] != name:
        return False
    keys = action.get("compare_args")
    keys = list(arguments) if keys is None else list(keys)
    gold = action.get("arguments") or {}
    return {k: v for k, v in arguments.items() if k in keys} == {
        k: v for k, v in gold.items() if k in keys
    }
