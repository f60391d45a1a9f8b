"""A scripted LLM agent and user for τ² tasks, served by the local OpenAI-compatible server
(`OpenAIServer.set_handler(handler)` or `python -m tests.support.openai_server --handler
tests.support.tau2_script:handler`). Only what an LLM would see is used: the user model
recognises its task from the scenario in its system prompt, the agent model from the
customer's first message. The agent then plays the task's gold actions as the policy wants
them played (`steps`): it authenticates the customer first, checks an order's status before
acting on it, makes the lookups the task requires, and before each write lists the action
and its values and asks "Shall I proceed? (yes/no)" — the customer says yes; gold steps that
fail on our tools (noted on their tasks) are left out. Then it reports the communicated
facts, and the customer (after its own part on its side, dual control) says goodbye.

Model names: `openai/tau2-agent` and `openai/tau2-user`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from email.message import Message
from functools import cache
from typing import Any

from tests.support.openai_server import Reply, ToolCallSpec, text, tool_calls

PROCEED = "Shall I proceed? (yes/no)"
YES = "Yes, please go ahead."
DONE = "All done."
CLOSE = "Thank you, that is all. ###STOP###"

# ("say", text, {}) or ("call", tool name, arguments): one assistant message each.
Step = tuple[str, str, dict[str, Any]]


def opening(task: Any) -> str:
    return f"Hello. {task.scenario.reason}"


def summary(tool: Any, arguments: Mapping[str, Any]) -> str:
    """The agent's confirmation request: the action named and every argument's value."""
    action = tool.confirm.words[0] if tool.confirm is not None else tool.name.replace("_", " ")
    values = "; ".join(
        f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in arguments.items()
    )
    return f"To confirm, I will {action} with these details — {values}. {PROCEED}"


def steps(domain: Any, task: Any, raw: Mapping[str, Any]) -> tuple[Step, ...]:
    """The agent's script for a task: τ²'s gold actions, played as the policy wants."""
    from evals.domains.tau2_common.data import call_tool, gold_actions
    from evals.engine.errors import ToolError
    from evals.engine.task import GoldCall

    world = domain.fresh_world(task.world_seed)
    out: list[Step] = []

    def call(name: str, arguments: Mapping[str, Any]) -> None:
        out.append(("call", name, dict(arguments)))
        # A lookup of what the customer first said wrongly fails, as in τ²'s gold.
        with contextlib.suppress(ToolError):
            call_tool(domain.tools, world, name, arguments)

    actions = gold_actions(raw) or [(g.name, dict(g.arguments)) for g in task.gold]
    for entry in task.required_reads:
        if not any((a.name, dict(a.arguments)) in actions for a in entry):
            call(entry[0].name, entry[0].arguments)
    owed = list(task.gold)
    for name, arguments in actions:
        tool = domain.tools[name]
        if tool.kind.value != "write":
            call(name, arguments)
            continue
        if not owed or owed[0].key() != GoldCall(name, arguments).key():
            continue  # a published gold step that fails on our tools (noted on the task)
        owed.pop(0)
        if not tool.terminal:
            _prepare(domain, world, arguments, call)
            out.append(("say", summary(tool, arguments), {}))
        call(name, arguments)
    return tuple(out)


def _prepare(domain: Any, world: Any, arguments: Mapping[str, Any], call: Any) -> None:
    """Authenticate the customer the write is for, and check the order's status, first."""
    orders = world.tables.get("orders", {})
    order_id = arguments.get("order_id")
    owner = orders[order_id]["user_id"] if order_id in orders else arguments.get("user_id")
    if domain.tools.get("find_user_id_by_email") is not None:
        if not world.session.verified_customer_id and owner:
            call("find_user_id_by_email", {"email": world.tables["users"][owner]["email"]})
        if order_id in orders and order_id not in world.shown:
            call("get_order_details", {"order_id": order_id})


@cache
def _tasks() -> tuple[dict[str, Any], ...]:
    """Every task's script, over both domains. Tasks with the same opening (τ² has a few,
    differing in how the customer behaves) cannot be told apart by the agent: it plays the
    last one's script, whose outcome is the same."""
    from evals.domains import get_domain
    from evals.domains.tau2_common.data import read_json

    out: list[dict[str, Any]] = []
    for name, folder in (("tau2_mock", "mock"), ("tau2_retail", "retail")):
        domain = get_domain(name)
        raws = {str(r["id"]): r for r in read_json(folder, "tasks.json")}
        for task in domain.tasks():
            out.append(
                {
                    "opening": opening(task),
                    "prompt": task.scenario.prompt(),
                    "steps": steps(domain, task, raws[task.id]),
                    "facts": [alts[0] for alts in task.communicate],
                    "before": task.scenario.data.get("before") or (),
                    "after": task.scenario.data.get("after") or (),
                }
            )
    return tuple(out)


def _own_tools(messages: Sequence[Mapping[str, Any]], offered: set[str], wanted: Any) -> Reply:
    """The customer's next own tool call among `wanted` (when offered and not made yet)."""
    made = [c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()]
    for name, arguments in wanted:
        if name in offered and name not in made:
            return tool_calls(ToolCallSpec(name, arguments))
    return Reply()


def _user(body: Mapping[str, Any]) -> Reply:
    # The user model sees the roles flipped: its own messages are "assistant", the agent's
    # "user".
    messages = body["messages"]
    system = messages[0]["content"]
    offered = {f["function"]["name"] for f in body.get("tools") or ()}
    task = next((t for t in _tasks() if t["prompt"] in system), None)
    if task is None:
        return text(f"I have a question. {CLOSE}")
    if not any(m["role"] == "assistant" and m.get("content") for m in messages):
        before = _own_tools(messages, offered, task["before"])
        return before if before.tool_calls else text(task["opening"])
    agent_said = str(messages[-1].get("content") or "") if messages[-1]["role"] == "user" else ""
    if agent_said.endswith(PROCEED):
        return text(YES)
    after = _own_tools(messages, offered, task["after"])
    return after if after.tool_calls else text(CLOSE)


def _agent(body: Mapping[str, Any]) -> Reply:
    messages = body["messages"]
    first = next((m["content"] for m in messages if m["role"] == "user"), "")
    task = next((t for t in reversed(_tasks()) if t["opening"] == first), None)
    if task is None:
        return text("I am sorry, I cannot help with that.")
    # Every assistant message after the greeting is one step of the script.
    position = sum(1 for m in messages if m["role"] == "assistant") - 1
    script = task["steps"]
    if position < len(script):
        kind, what, arguments = script[position]
        return text(what) if kind == "say" else tool_calls(ToolCallSpec(what, arguments))
    if position == len(script):
        return text(f"{DONE} {', '.join(task['facts'])}".strip())
    return text("You're welcome. Goodbye!")


def handler(body: dict[str, Any], headers: Message) -> Reply:
    if os.environ.get("TAU2_SCRIPT_DEBUG"):
        print(json.dumps(body)[:500])
    return _user(body) if "user" in str(body.get("model")) else _agent(body)
