"""Against a real provider: opt-in with RUN_LIVE_LLM_TESTS=1 (and the provider's key, e.g.
OPENAI_API_KEY). LIVE_LLM_MODEL picks the model (default gpt-4.1-mini)."""

from __future__ import annotations

import os

import pytest

from evals.engine.llm import CallRole, ModelClient, ModelSpec, TrialAccounting

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        os.environ.get("RUN_LIVE_LLM_TESTS") != "1",
        reason="calls a real LLM provider; set RUN_LIVE_LLM_TESTS=1 and the provider's API key",
    ),
]


def test_a_real_provider_answers_a_tool_call_and_is_accounted():
    model = os.environ.get("LIVE_LLM_MODEL", "gpt-4.1-mini")
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_order",
                "description": "Look up an order by id.",
                "parameters": {
                    "type": "object",
                    "properties": {"order_id": {"type": "string"}},
                    "required": ["order_id"],
                },
            },
        }
    ]
    messages = [{"role": "user", "content": "Please look up order #W123 with the tool."}]
    acc = TrialAccounting("live")
    result = ModelClient().complete(
        ModelSpec(model, params={"temperature": 0}, timeout_s=60),
        messages,
        tools=tools,
        role=CallRole.AGENT,
        accounting=acc,
    )
    assert result.tool_calls and result.tool_calls[0].name == "get_order"
    assert acc.records[0].tokens_in > 0 and acc.records[0].resolved_model
