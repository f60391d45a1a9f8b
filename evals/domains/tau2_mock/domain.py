"""Our implementation of the τ² mock tools, and its tasks with their initial states.

Per-task initial state (τ²'s `initial_state`: extra data, initialisation actions, a message
history whose tool calls already ran) is applied by `build_world(seed)`, the seed being the
task's index + 1 (0 = the plain database).

Dual control: the customer has its own side of the world — its notification inbox
(`user_db.json`, the `user:notifications` table) — and its own tools (`check_notifications`,
`dismiss_notification`, `Actor.USER`) the agent never sees. Initialisation actions with
env_type "user" (`add_notification`) run on that side; env assertions with env_type "user"
(`assert_notification_status`) judge it, and the customer's writes that make them true are
the task's `user_gold`.
"""

from __future__ import annotations

import dataclasses
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
from evals.domains.tau2_mock.scripted.vocab import customer_brief
from evals.engine.errors import ToolError
from evals.engine.messages import Message, Role, ToolCall
from evals.engine.task import GoldCall, Task
from evals.engine.tools import Actor, ToolKind, ToolSet, tool
from evals.engine.world import USER_SIDE, World

NOTIFICATIONS = f"{USER_SIDE}notifications"


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


# -- the customer's side (dual control) ------------------------------------------------------


@tool(kind=ToolKind.READ, actor=Actor.USER)
def check_notifications(world: Tau2World) -> list:
    """Check your own notification inbox: every notification with its id, message, status
    ("unread" or "read") and the task it is about."""
    return list(world.tables[NOTIFICATIONS].values())


@tool(kind=ToolKind.WRITE, actor=Actor.USER)
def dismiss_notification(world: Tau2World, notification_id: str) -> dict:
    """Dismiss a notification in your own inbox; it is then marked as read.

    Args:
        notification_id: The notification id, such as "notif_1".
    """
    world.get(NOTIFICATIONS, notification_id, f"notification {notification_id}")
    notification = world.edit(NOTIFICATIONS, notification_id)
    notification["status"] = "read"
    return notification


def add_notification(world: Tau2World, notification_id: str, message: str, task_id: str) -> None:
    """τ²'s user-side initialisation action: an unread notification in the customer's inbox."""
    world.tables[NOTIFICATIONS][notification_id] = {
        "notification_id": notification_id,
        "message": message,
        "status": "unread",
        "task_id": task_id,
    }


USER_FUNCTIONS = {"add_notification": add_notification}

TOOLS = ToolSet(
    [
        create_task,
        get_users,
        update_task_status,
        transfer_to_human_agents,
        check_notifications,
        dismiss_notification,
    ]
)


def assert_task_status(world: World, task_id: str, expected_status: str) -> bool:
    task = world.tables["tasks"].get(task_id)
    return task is not None and task.get("status") == expected_status


def assert_notification_status(world: World, notification_id: str, expected_status: str) -> bool:
    notification = world.tables[NOTIFICATIONS].get(notification_id)
    return notification is not None and notification.get("status") == expected_status


ASSERTIONS = {
    "assert_task_status": assert_task_status,
    "assert_notification_status": assert_notification_status,
}


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
        args = action.get("arguments") or {}
        if action.get("env_type", "assistant") == "user" and action["func_name"] in USER_FUNCTIONS:
            USER_FUNCTIONS[action["func_name"]](world, **args)
        else:
            call_tool(TOOLS, world, action["func_name"], args)
    for message in initial.get("message_history") or ():
        for call in message.get("tool_calls") or ():
            if TOOLS.get(call["name"]) is not None:
                call_tool(TOOLS, world, call["name"], call.get("arguments") or {})


@cache
def _pristine(seed: int) -> Tau2World:
    db = read_json("mock", "db.json")
    user_db = read_json("mock", "user_db.json")
    world = Tau2World(
        {
            **{name: dict(rows) for name, rows in db.items()},
            **{f"{USER_SIDE}{name}": dict(rows) for name, rows in user_db.items()},
        }
    )
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


def _user_gold(raw: Mapping[str, Any]) -> list[GoldCall]:
    """The customer's own write that makes each user-side assertion true."""
    out = []
    for a in (raw.get("evaluation_criteria") or {}).get("env_assertions") or ():
        if a.get("func_name") == "assert_notification_status" and a.get("env_type") == "user":
            args = a["arguments"]
            if args.get("expected_status") == "read":
                out.append(
                    GoldCall("dismiss_notification", {"notification_id": args["notification_id"]})
                )
    return out


def _scripted(task: Task) -> Task:
    """The task with the scripted customer's brief in `scenario.data`: read from τ²'s
    user-scenario text alone (never from the gold actions or assertions)."""
    s = task.scenario
    text = " ".join(t for t in (s.reason, s.known_info, s.unknown_info, s.instructions) if t)
    data = {**s.data, **customer_brief(text)}
    return dataclasses.replace(task, scenario=dataclasses.replace(s, data=data))


@cache
def load_tasks() -> list[Task]:
    tasks = convert_tasks(
        "tau2_mock",
        TOOLS,
        read_json("mock", "tasks.json"),
        read_json("mock", "split_tasks.json"),
        build_world=build_world,
        extra_gold=_assertion_gold,
        user_gold=_user_gold,
        world_seed=lambda index, raw: index + 1 if raw.get("initial_state") else 0,
    )
    raws = {str(r["id"]): r for r in read_json("mock", "tasks.json")}
    return [_scripted(_with_history(t, raws[t.id])) for t in tasks]


def _with_history(task: Task, raw: Mapping[str, Any]) -> Task:
    """τ²'s message history, as the conversation the trial continues (its call ids
    prefixed, so they never collide with the trial's own)."""
    out: list[Message] = []
    names: dict[str, str] = {}
    for m in (raw.get("initial_state") or {}).get("message_history") or ():
        role = Role(m["role"])
        if role is Role.TOOL:
            call_id = f"history_{m['id']}"
            out.append(
                Message(
                    Role.TOOL,
                    str(m.get("content") or ""),
                    tool_call_id=call_id,
                    name=names.get(call_id, ""),
                )
            )
            continue
        calls = tuple(
            ToolCall(f"history_{c['id']}", str(c["name"]), json.dumps(c.get("arguments") or {}))
            for c in m.get("tool_calls") or ()
        )
        names.update({c.id: c.name for c in calls})
        out.append(Message(role, str(m.get("content") or ""), tool_calls=calls))
    return dataclasses.replace(task, history=tuple(out))
