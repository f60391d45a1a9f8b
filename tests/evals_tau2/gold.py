"""Synthetic τ² trajectories for the oracle, without a conversation loop: a task's gold as
`tests/support/tau2_script`'s agent plays it (authenticate, check the order, list the action
and its values and ask, the customer says yes, write), every write through the policy guard.
`leave_out` drops kinds of step to break the policy on purpose: "authenticate" (the
find_user_id lookups), "confirm" (the summary and the customer's yes)."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from functools import cache
from typing import Any

from evals.domains.tau2_common.data import read_json
from evals.engine.domain import Domain
from evals.engine.messages import (
    GuardMode,
    Message,
    Role,
    TerminationReason,
    ToolCall,
    ToolResult,
    Trajectory,
)
from evals.engine.policy import PolicyGuard, blocked_message
from evals.engine.task import Task
from evals.engine.tools import ToolKind
from evals.engine.world import World
from tests.support import tau2_script

FOLDERS = {"tau2_mock": "mock", "tau2_retail": "retail"}
AUTHENTICATION = ("find_user_id_by_email", "find_user_id_by_name_zip")


@cache
def raw_tasks(domain_name: str) -> dict[str, Mapping[str, Any]]:
    return {str(r["id"]): r for r in read_json(FOLDERS[domain_name], "tasks.json")}


def idle(domain: Domain, task: Task) -> tuple[Trajectory, World]:
    """The customer asks, the agent does nothing, the customer leaves."""
    messages = (
        Message.system(domain.policy),
        Message.assistant("Hi!"),
        Message.user(tau2_script.opening(task)),
    )
    trajectory = Trajectory(messages, (), (), TerminationReason.USER_STOP, 0, 0.0)
    return trajectory, domain.fresh_world(task.world_seed)


def play(
    domain: Domain,
    task: Task,
    *,
    mode: GuardMode = GuardMode.ENFORCE,
    leave_out: Collection[str] = (),
) -> tuple[Trajectory, World]:
    world = domain.fresh_world(task.world_seed)
    guard = PolicyGuard(domain.rules, mode)
    messages = [
        Message.system(domain.policy),
        Message.assistant("Hi!"),
        Message.user(tau2_script.opening(task)),
    ]
    verdicts = []
    errors = 0
    transferred = False
    script = tau2_script.steps(domain, task, raw_tasks(domain.name)[task.id])
    for i, (kind, what, arguments) in enumerate(script):
        if kind == "say":
            if "confirm" not in leave_out:
                messages += [Message.assistant(what), Message.user(tau2_script.YES)]
            continue
        if what in AUTHENTICATION and "authenticate" in leave_out:
            continue
        call = ToolCall(f"c{i}", what, json.dumps(arguments))
        messages.append(Message.assistant("", (call,)))
        tool = domain.tools[what]
        if tool.kind is ToolKind.WRITE:
            verdict = guard.check(
                world=world,
                tool=tool,
                arguments=tool.parse_arguments(call.arguments),
                call_id=call.id,
                messages=messages,
            )
            verdicts.append(verdict)
            if verdict.blocked:
                errors += 1
                result = ToolResult(call.id, what, blocked_message(verdict), error=True)
                messages.append(Message.tool(result))
                continue
        result, _ = tool.invoke(world, call)
        errors += result.error
        messages.append(Message.tool(result))
        transferred = transferred or (tool.terminal and not result.error)
    if not transferred:
        facts = ", ".join(alts[0] for alts in task.communicate)
        messages.append(Message.assistant(f"{tau2_script.DONE} {facts}".strip()))
    # Dual control: the customer's own part, with its own tools, after the agent's.
    for i, g in enumerate(task.user_gold):
        call = ToolCall(f"u{i}", g.name, json.dumps(dict(g.arguments)))
        messages.append(Message(Role.USER, tool_calls=(call,)))
        messages.append(Message.tool(domain.tools[g.name].invoke(world, call)[0]))
    reason = TerminationReason.TRANSFER_TO_HUMAN if transferred else TerminationReason.USER_STOP
    return Trajectory(tuple(messages), tuple(verdicts), (), reason, errors, 0.0), world
