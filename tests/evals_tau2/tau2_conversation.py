"""A scripted LLM agent and LLM customer for τ²'s mock tasks, answered by the local
OpenAI-compatible server (`OpenAIServer.set_handler(handler)`, or `python -m
tests.support.openai_server --handler tests.evals_tau2.tau2_conversation:handler`), shaped
like a real τ² conversation:

    customer  [its own reads first, e.g. check_notifications]  opens with its request
    agent     asks for the details                 customer  gives them
    agent     reads (get_users)
    agent     summarises each write and asks        customer  says yes
    agent     writes — one tool call per LLM turn   (a transfer ends the conversation)
    agent     reads again to check, then confirms   customer  [its own writes, e.g.
              what it did                                      dismiss_notification]
                                                    customer  closes with ###STOP###

Only what each model would see is used: the customer recognises its task from the scenario
in its system prompt (and uses its tools only when they are offered), the agent from the
customer's first message; neither sees the other's tool calls. Model names
`openai/tau2-agent` and `openai/tau2-user`. The rewards of such a run come from the oracle
on the final world, not from anything scripted here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from tests.support.openai_server import Reply, ToolCallSpec, text, tool_calls

ASK_DETAILS = "I can help with that. Could you give me the details of your request, please?"
PROCEED = "Shall I proceed? (yes/no)"
DONE = "All done:"
CLOSE = "Thank you, that's all I needed. ###STOP###"


def opening(task: Any) -> str:
    return f"Hello. {task.scenario.reason}"


@cache
def tasks() -> dict[str, Any]:
    """The customer's first message -> the task (tasks with the same scenario share gold)."""
    from evals.domains import get_domain

    return {opening(t): t for t in get_domain("tau2_mock").tasks()}


@cache
def _agent_script(task_id: str) -> tuple[tuple[str, str, str], ...]:
    """The agent's turns for a task: ("text", words, "") or ("call", name, json args)."""
    from evals.domains import get_domain
    from evals.domains.tau2_common.data import gold_actions, read_json

    domain = get_domain("tau2_mock")
    task = domain.task(task_id)
    raw = next(r for r in read_json("mock", "tasks.json") if str(r["id"]) == task_id)
    actions = gold_actions(raw) or [(g.name, dict(g.arguments)) for g in task.gold]
    steps: list[tuple[str, str, str]] = [("text", ASK_DETAILS, ""), ("call", "get_users", "{}")]
    transferred = False
    for name, args in actions:
        if domain.tools[name].kind.value == "write":
            what = name.replace("_", " ")
            steps.append(("text", f"I will {what} with {json.dumps(args)}. {PROCEED}", ""))
            transferred = transferred or domain.tools[name].terminal
        steps.append(("call", name, json.dumps(args)))
    if not transferred:
        steps.append(("call", "get_users", "{}"))  # check the write took effect
        facts = " ".join(alts[0] for alts in task.communicate)
        steps.append(("text", f"{DONE} {facts} Is there anything else I can help with?", ""))
    return tuple(steps)


def agent(body: Mapping[str, Any]) -> Reply:
    messages = body["messages"]
    first = next((m["content"] for m in messages if m["role"] == "user"), "")
    task = tasks().get(first)
    if task is None:
        return text("I am sorry, I cannot help with that.")
    # Every assistant message after the greeting is one step of the script.
    position = sum(1 for m in messages if m["role"] == "assistant") - 1
    script = _agent_script(task.id)
    if position >= len(script):
        return text("You're welcome. Goodbye!")
    kind, what, args = script[position]
    if kind == "text":
        return text(what)
    return tool_calls(ToolCallSpec(what, args))


def user(body: Mapping[str, Any]) -> Reply:
    messages = body["messages"]
    system = messages[0]["content"]
    offered = {f["function"]["name"] for f in body.get("tools") or ()}
    task = next((t for t in tasks().values() if t.scenario.prompt() in system), None)
    if task is None:
        return text(f"I have a question. {CLOSE}")
    own_calls = [c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()]
    spoke = [m for m in messages if m["role"] == "assistant" and m.get("content")]
    data = task.scenario.data
    # The customer's own reads come first, when its tools are offered.
    for name, args in data.get("before") or ():
        if name in offered and name not in own_calls:
            return tool_calls(ToolCallSpec(name, args))
    if not spoke:
        return text(opening(task))
    agent_said = str(messages[-1].get("content") or "") if messages[-1]["role"] == "user" else ""
    if agent_said == ASK_DETAILS:
        return text(f"Sure. {task.scenario.data.get('ticket') or task.scenario.reason}")
    if agent_said.endswith(PROCEED):
        return text("Yes, please go ahead.")
    if agent_said.startswith(DONE) or messages[-1]["role"] == "tool":
        for name, args in data.get("after") or ():
            if name in offered and name not in own_calls:
                return tool_calls(ToolCallSpec(name, args))
        return text(CLOSE)
    return text(f"Sorry, I don't follow. {task.scenario.reason}")


def handler(body: dict[str, Any], headers: Any) -> Reply:
    return user(body) if "user" in str(body.get("model")) else agent(body)
