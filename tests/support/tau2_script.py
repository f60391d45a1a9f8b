"""A scripted LLM agent and user for τ² tasks, served by the local OpenAI-compatible server
(`OpenAIServer.set_handler(handler)` or `python -m tests.support.openai_server --handler
tests.support.tau2_script:handler`). Only what an LLM would see is used: the user model
recognises its task from the scenario in its system prompt, the agent model from the
customer's first message; the agent then plays the task's gold actions, one per call, and
reports the communicated facts.

Model names: `openai/tau2-agent` and `openai/tau2-user`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from email.message import Message
from functools import cache
from typing import Any

from tests.support.openai_server import Reply, ToolCallSpec, text, tool_calls


@cache
def _tasks() -> dict[str, dict[str, Any]]:
    """First customer message -> (gold actions, facts to communicate), over both domains."""
    from evals.domains import get_domain
    from evals.domains.tau2_common.data import gold_actions, read_json

    out: dict[str, dict[str, Any]] = {}
    for name, folder in (("tau2_mock", "mock"), ("tau2_retail", "retail")):
        domain = get_domain(name)
        raws = {str(r["id"]): r for r in read_json(folder, "tasks.json")}
        for task in domain.tasks():
            opening = f"Hello. {task.scenario.reason}"
            out[opening] = {
                "prompt": task.scenario.prompt(),
                "actions": gold_actions(raws[task.id])
                or [(g.name, dict(g.arguments)) for g in task.gold],
                "facts": [alts[0] for alts in task.communicate],
            }
    return out


def _user(body: Mapping[str, Any]) -> Reply:
    messages = body["messages"]
    system = messages[0]["content"]
    if not any(m["role"] == "assistant" for m in messages):
        for opening, task in _tasks().items():
            if task["prompt"] in system:
                return text(opening)
        return text("I have a question. ###STOP###")
    return text("Thank you, that is all. ###STOP###")


def _agent(body: Mapping[str, Any]) -> Reply:
    messages = body["messages"]
    opening = next((m["content"] for m in messages if m["role"] == "user"), "")
    task = _tasks().get(opening)
    if task is None:
        return text("I am sorry, I cannot help with that.")
    done = sum(len(m.get("tool_calls") or ()) for m in messages if m["role"] == "assistant")
    actions = task["actions"]
    if done < len(actions):
        name, args = actions[done]
        return tool_calls(ToolCallSpec(name, args))
    facts = ", ".join(task["facts"])
    return text(f"All done. {facts}".strip())


def handler(body: dict[str, Any], headers: Message) -> Reply:
    if os.environ.get("TAU2_SCRIPT_DEBUG"):
        print(json.dumps(body)[:500])
    return _user(body) if "user" in str(body.get("model")) else _agent(body)
