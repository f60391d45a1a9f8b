"""Agents under test that live outside the engine.

- `LiteLLMAgent`: any model name LiteLLM routes (`gpt-4.1`, `anthropic/claude-...`,
  `openai/<name>` + `api_base` for any OpenAI-compatible endpoint: vLLM, a team's own agent
  service). The domain policy is the system message (the orchestrator puts it first), the
  domain tools go as functions, the suite's `agent_params` go to the provider.
- `CallableAgent`: `python:package.module:function`, called as `function(messages, tools)`
  with OpenAI-format dicts; it returns an assistant dict (`{"content": ..., "tool_calls":
  [...]}`), a plain string, or an engine `Message`.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.llm.accounting import CallRole, TrialAccounting
from evals.engine.llm.client import ModelClient
from evals.engine.llm.convert import IncrementalConverter
from evals.engine.llm.shared import default_client, spec_from_params, usage_numbers
from evals.engine.llm.spec import ModelSpec
from evals.engine.messages import Message, Role, ToolCall
from evals.engine.protocols import Agent, AgentFactory


class LiteLLMAgent:
    def __init__(self, spec: ModelSpec, *, client: ModelClient, trial_id: str) -> None:
        self.spec = spec
        self.client = client
        self.accounting = TrialAccounting(trial_id)
        self._converter = IncrementalConverter()

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        completion = self.client.complete(
            self.spec,
            self._converter.convert(messages),
            tools=tools,
            role=CallRole.AGENT,
            accounting=self.accounting,
        )
        return completion.to_message()

    def usage(self) -> dict[str, float]:
        return usage_numbers(self.accounting.totals().get(CallRole.AGENT))

    def resolved_models(self) -> list[str]:
        return self.accounting.resolved_models(CallRole.AGENT)


def litellm_agent_resolver(name: str) -> AgentFactory:
    model = name.removeprefix("litellm:")

    def factory(*, domain: Any, params: Mapping[str, Any], seed: int) -> Agent:
        spec = spec_from_params(model, params)
        return LiteLLMAgent(spec, client=default_client(), trial_id=f"agent-seed-{seed}")

    return factory


def _from_reply(reply: Any) -> Message:
    if isinstance(reply, Message):
        if reply.role is not Role.ASSISTANT:
            raise TypeError(f"the agent returned a {reply.role} message")
        return reply
    if isinstance(reply, str):
        return Message.assistant(reply)
    if isinstance(reply, Mapping):
        calls = []
        for i, raw in enumerate(reply.get("tool_calls") or ()):
            fn = raw.get("function", raw)
            args = fn.get("arguments", "{}")
            calls.append(
                ToolCall(
                    str(raw.get("id") or f"call_{i}"),
                    str(fn["name"]),
                    args if isinstance(args, str) else json.dumps(args),
                )
            )
        return Message.assistant(str(reply.get("content") or ""), tuple(calls))
    raise TypeError(f"the agent returned {type(reply).__name__}, not a message")


class CallableAgent:
    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self._converter = IncrementalConverter()

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        return _from_reply(self.fn(self._converter.convert(messages), list(tools)))


def python_agent_resolver(name: str) -> AgentFactory:
    target = name.removeprefix("python:")
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise EngineError(f"agent {name!r}: expected python:package.module:function")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise EngineError(f"agent {name!r}: cannot import {target}: {exc}") from exc
    if not callable(fn):
        raise EngineError(f"agent {name!r}: {target} is not callable")

    def factory(*, domain: Any, params: Mapping[str, Any], seed: int) -> Agent:
        return CallableAgent(fn)

    return factory
