"""Unit tests on LiteLLM's `mock_response`: no server, no network."""

from __future__ import annotations

import pytest

from evals.engine.llm import (
    AgentModelError,
    CallRole,
    ModelCallExhausted,
    ModelClient,
    ModelSpec,
    RetryPolicy,
    TrialAccounting,
)

MESSAGES = [{"role": "user", "content": "Hi"}]


def complete(spec: ModelSpec, **kw: object):
    sleeps: list[float] = []
    client = ModelClient(sleep=sleeps.append, **kw)  # type: ignore[arg-type]
    acc = TrialAccounting("t")
    return client.complete(spec, MESSAGES, role=CallRole.AGENT, accounting=acc), acc, sleeps


def test_a_mocked_reply_is_returned_and_priced_from_the_local_cost_map():
    result, acc, _ = complete(ModelSpec("gpt-4o-mini", params={"mock_response": "Hello there"}))
    assert result.content == "Hello there"
    assert acc.records[0].cost_known and acc.records[0].cost > 0
    assert acc.records[0].provider == "openai"


def test_a_mocked_rate_limit_is_retried_until_exhausted():
    spec = ModelSpec("gpt-4o-mini", params={"mock_response": "litellm.RateLimitError"})
    with pytest.raises(ModelCallExhausted) as caught:
        complete(spec, retry=RetryPolicy(max_attempts=3))
    assert caught.value.attempts == 3


def test_a_mocked_context_window_error_is_the_agents_failure():
    spec = ModelSpec("gpt-4o-mini", params={"mock_response": "litellm.ContextWindowExceededError"})
    with pytest.raises(AgentModelError) as caught:
        complete(spec)
    assert caught.value.kind == "context_window_exceeded"


def test_mocked_tool_calls_come_back_as_raw_json_text():
    calls = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_order", "arguments": '{"order_id": "#W1"}'},
        }
    ]
    result, _, _ = complete(ModelSpec("gpt-4o-mini", params={"mock_tool_calls": calls}))
    assert result.tool_calls[0].name == "get_order"
    assert result.tool_calls[0].arguments == '{"order_id": "#W1"}'
