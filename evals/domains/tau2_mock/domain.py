"""Our implementation of the τ² mock tools, and its tasks with their initial states.

Per-task initial state (τ²'s `initial_state`: extra data, initialisation actions, a message
history whose tool calls already ran) is applied by `build_world(seed)`, the seed being the
task's index + 1 (0 = the plain database). State the task puts in the *customer's* own
database (dual control: notifications) is not modelled; its assertions are not judged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal

from evals.domains.tau2_common.data import (
    Tau2World,
    call_tool,
    convert_tasks,
    read_json,
    transfer,
)
from evals.engine.errors import ToolError
from evals.engine.task import GoldCall, Task
from evals.engine.tools import ToolKind, ToolSet, tool
from evals.engine.world import World


@tool(kind=ToolKind.WRITE)
def create_task(world: Tau2World, user_id: str, title: str, description: str = "") -> dict:
    """Create a new task for a user. The task starts as "pending".

    Args:
        user_id: The id of an existing user, such as "user_1".
        title: The task title (required, not empty).
        description: An optional description of the task.
    """
    if not title.strip():
        raise ToolError("a task must have a title")
    world.get("users", user_id, f"user {user_id}")
    task_id = f"task_{len(world.tables['tasks']) + 1}"
    task = {
        "task_id": task_id,
        "title": title,
        "description": description or None,
        "status": "pending",
    }
    world.tables["tasks"][task_id] = task
    user = world.edit("users", user_id)
    user["tasks"] = [*user.get("tasks", []), task_id]
    return task


@tool(kind=ToolKind.READ)
def get_users(world: Tau2World) -> list:
    """List every user with their id, name and task ids."""
    return list(world.tables["users"].values())


@tool(kind=ToolKind.WRITE)
def update_task_status(
    world: Tau2World, task_id: str, status: Literal["pending", "completed"]
) -> dict:
    """Set the status of a task.

    Args:
        task_id: The task id, such as "task_1".
        status: The new status: "pending" or "completed".
    """
    world.get("tasks", task_id, f"task {task_id}")
    task = world.edit("tasks", task_id)
    task["status"] = status
    return task


@tool(kind=ToolKind.WRITE, terminal=True, free_text=("summary",))
def transfer_to_human_agents(world: Tau2World, summary: str) -> str:
    """Transfer the customer to a human agent, with a summary of their issue. Use it only
    when the request cannot be handled with your tools under the policy.

    Args:
        summary: A short summary of the customer's issue for the human agent.
    """
    return transfer(world, summary)


TOOLS = ToolSet([create_task, get_users, update_task_status, transfer_to_human_agents])


def _merge(target: dict[str, Any], patch: Mapping[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            target[key] = dict(target[key])
            _merge(target[key], value)
        else:
            target[key] = json.loads(json.dumps(value))


def _initialise(world: Tau2World, raw: Mapping[str, Any]) -> None:
    initial = raw.get("initial_state") or {}
    data = (initial.get("initialization_data") or {}).get("agent_data")
    if data:
        _merge(world.tables, data)
    for action in initial.get("initialization_actions") or ():
        if action.get("env_type", "assistant") == "assistant":
            call_tool(TOOLS, world, action["func_name"], action.get("arguments") or {})
    for message in initial.get("message_history") or ():
        for call in message.get("tool_calls") or ():
            if TOOLS.get(call["name"]) is not None:
                call_tool(TOOLS, world, call["name"], call.get("arguments") or {})


@cache
def _pristine(seed: int) -> Tau2World:
    db = read_json("mock", "db.json")
    world = Tau2World({name: dict(rows) for name, rows in db.items()})
    if seed:
        _initialise(world, read_json("mock", "tasks.json")[seed - 1])
    return world


def build_world(seed: int) -> World:
    return _pristine(seed)


def _assertion_gold(raw: Mapping[str, Any]) -> list[GoldCall]:
    """A task judged only by `assert_task_status` gets the write that makes it true."""
    criteria = raw.get("evaluation_criteria") or {}
    if criteria.get("actions"):
        return []
    out = []
    for a in criteria.get("env_assertions") or ():
        if a.get("func_name") == "assert_task_status" and a.get("env_type") == "assistant":
            args = a["arguments"]
            out.append(
                GoldCall(
                    "update_task_status",
                    {"task_id": args["task_id"], "status": args["expected_status"]},
                )
            )
    return out


@cache
def load_tasks() -> list[Task]:
    return convert_tasks(
        "tau2_mock",
        TOOLS,
        read_json("mock", "tasks.json"),
        read_json("mock", "split_tasks.json"),
        build_world=build_world,
        extra_gold=_assertion_gold,
        world_seed=lambda index, raw: index + 1 if raw.get("initial_state") else 0,
    )
