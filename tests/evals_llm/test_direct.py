"""The direct path (evals/engine/llm/direct.py) against LiteLLM's own: for the models that
take it, the server must receive the same request, the engine must read the same answer,
and every failure must come back as the same LiteLLM exception, classified the same way."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from evals.engine.llm import CallRole, ModelClient, ModelSpec, RetryPolicy, TrialAccounting
from evals.engine.llm.errors import classify
from evals.engine.llm.runtime import litellm_module
from tests.support.openai_server import (
    OpenAIServer,
    Reply,
    ToolCallSpec,
    bad_request,
    context_window_exceeded,
    rate_limited,
    server_error,
    text,
    tool_call,
    tool_calls,
)

AGENT = CallRole.AGENT
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look an order up.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string", "pattern": "^#W\\d+$"}},
                "required": ["order_id"],
            },
        },
    }
]
MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You help. 你好"},
    {"role": "user", "content": "Where is #W1?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_order", "arguments": '{"order_id": "#W1"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"status": "shipped"}'},
]
PARAMS = {"temperature": 0.2, "seed": 7, "max_tokens": 300, "top_p": 0.9}


def _spec(server: OpenAIServer, name: str, **kw: Any) -> ModelSpec:
    kw.setdefault("params", PARAMS)
    kw.setdefault("api_key", "test")
    return ModelSpec(f"openai/{name}", api_base=server.url, **kw)


def _both(server: OpenAIServer, name: str, reply: Reply, **kw: Any) -> list[Any]:
    """The same call through LiteLLM and through the direct path: each one's completion
    (or exception) and the request the server received from it."""
    out = []
    for direct in (False, True):
        server.script(name, reply)
        client = ModelClient(direct=direct, sleep=lambda s: None)
        before = len(server.requests)
        try:
            result: Any = client.complete(
                _spec(server, name, **kw),
                MESSAGES,
                tools=TOOLS,
                role=AGENT,
                accounting=TrialAccounting("t"),
            )
        except Exception as exc:
            result = exc
        (request,) = server.requests[before:]
        request.pop("_client_port")
        out.append((result, request))
    return out


def test_an_unpriced_openai_compatible_model_never_reaches_litellm_completion(
    openai_server, monkeypatch
):
    litellm = litellm_module()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("litellm.completion called")

    monkeypatch.setattr(litellm, "completion", refuse)
    openai_server.script("direct", text("hi"))
    result = ModelClient().complete(
        _spec(openai_server, "direct"), MESSAGES, role=AGENT, accounting=TrialAccounting("t")
    )
    assert result.content == "hi"


@pytest.mark.parametrize(
    ("why", "spec_kw"),
    [
        ("priced by the suite", {"params": {"input_cost_per_token": 1e-6}}),
        ("a parameter LiteLLM maps", {"params": {"response_format": {"type": "json_object"}}}),
        ("no key", {"api_key": None}),
    ],
)
def test_models_the_direct_path_does_not_know_go_through_litellm(
    openai_server, monkeypatch, why, spec_kw
):
    litellm = litellm_module()
    calls = []
    bare = litellm.completion

    def counting(**kwargs: Any) -> Any:
        calls.append(kwargs)
        return bare(**kwargs)

    monkeypatch.setattr(litellm, "completion", counting)
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    openai_server.script("lite", text("hi"))
    ModelClient().complete(
        _spec(openai_server, "lite", **spec_kw),
        MESSAGES,
        role=AGENT,
        accounting=TrialAccounting("t"),
    )
    assert len(calls) == 1, why


def test_a_litellm_callback_keeps_every_call_on_litellm(openai_server, monkeypatch):
    litellm = litellm_module()
    logged: list[Any] = []

    def log(kwargs: Any, response: Any, start: Any, end: Any) -> None:
        logged.append(response)

    monkeypatch.setattr(litellm, "success_callback", [log])
    openai_server.script("logged", text("hi"))
    ModelClient().complete(
        _spec(openai_server, "logged"), MESSAGES, role=AGENT, accounting=TrialAccounting("t")
    )
    assert _wait_for(lambda: len(logged) == 1)


def _wait_for(condition: Any) -> bool:
    """LiteLLM runs success callbacks on its logging thread."""
    import time

    for _ in range(100):
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_evals_llm_direct_0_sends_every_call_through_litellm(openai_server, monkeypatch):
    monkeypatch.setenv("EVALS_LLM_DIRECT", "0")
    assert ModelClient().direct is False
    monkeypatch.setenv("EVALS_LLM_DIRECT", "1")
    assert ModelClient().direct is True


@pytest.mark.parametrize(
    "reply",
    [
        text("Hello!", prompt_tokens=123, completion_tokens=45),
        text("<think>The order is shipped.</think>It shipped."),
        tool_call("get_order", {"order_id": "#W1"}, call_id="x1"),
        tool_call("get_order", '{"order_id": "#W1"', call_id="x2"),  # malformed JSON
        tool_calls(
            ToolCallSpec("get_order", {"order_id": "#W1"}, "a"), ToolCallSpec("get_order", {}, "b")
        ),
        Reply(content="renamed", model="served-name"),
        tool_call(
            "multi_tool_use.parallel",
            {
                "tool_uses": [
                    {"recipient_name": "functions.get_order", "parameters": {"order_id": "#W1"}},
                    {"recipient_name": "functions.get_order", "parameters": {"order_id": "#W2"}},
                ]
            },
            call_id="p",
        ),
    ],
    ids=["text", "think", "tool", "malformed", "two-tools", "served-name", "parallel"],
)
def test_the_server_receives_the_same_request_and_the_engine_reads_the_same_answer(
    openai_server, reply
):
    (lite, lite_request), (ours, our_request) = _both(openai_server, "same", reply)
    assert our_request == lite_request
    assert (ours.content, ours.tool_calls, ours.finish_reason) == (
        lite.content,
        lite.tool_calls,
        lite.finish_reason,
    )
    fields = ("resolved_model", "provider", "tokens_in", "tokens_out", "cost", "cost_known")
    fields += ("retries", "malformed_tool_calls", "failure")
    assert [getattr(ours.record, f) for f in fields] == [getattr(lite.record, f) for f in fields]


def test_extra_headers_reach_the_server_on_the_direct_path(openai_server):
    openai_server.script("headers", text("ok"))
    spec = _spec(openai_server, "x", params={"extra_headers": {"X-Script-Key": "headers"}})
    result = ModelClient().complete(spec, MESSAGES, role=AGENT, accounting=TrialAccounting("t"))
    assert result.content == "ok"
    assert openai_server.requests[-1]["_script_key"] == "headers"
    assert "extra_headers" not in openai_server.requests[-1]


@pytest.mark.parametrize(
    "reply",
    [
        rate_limited(retry_after=2.5),
        server_error(500),
        server_error(503),
        server_error(502),
        context_window_exceeded(),
        bad_request(),
        Reply(status=401, error_message="Incorrect API key", error_code="invalid_api_key"),
        Reply(status=403, error_message="no"),
        Reply(status=404, error_message="The model does not exist", error_code="model_not_found"),
        Reply(status=422, error_message="unprocessable"),
        Reply(status=400, error_message="content_policy_violation: flagged"),
    ],
    ids=lambda r: f"{r.status}-{r.error_code or r.error_message[:12]}",
)
def test_an_error_answer_raises_what_litellm_raises_and_is_classified_alike(openai_server, reply):
    once = RetryPolicy(max_attempts=1)
    (lite, _), (ours, _) = _both(openai_server, "err", reply, retry=once)
    assert isinstance(lite, Exception) and isinstance(ours, Exception)
    assert type(ours) is type(lite)
    assert type(ours.__cause__) is type(lite.__cause__)
    lite_verdict, our_verdict = classify(lite.__cause__), classify(ours.__cause__)
    assert our_verdict is not None and lite_verdict is not None
    assert (our_verdict.failure, our_verdict.retryable, our_verdict.kind) == (
        lite_verdict.failure,
        lite_verdict.retryable,
        lite_verdict.kind,
    )
    if lite_verdict.retry_after is not None:
        assert our_verdict.retry_after == pytest.approx(lite_verdict.retry_after, abs=0.01)


def _one_attempt(spec: ModelSpec, direct: bool) -> BaseException:
    client = ModelClient(direct=direct, retry=RetryPolicy(max_attempts=1))
    with pytest.raises(Exception) as caught:
        client.complete(spec, MESSAGES, role=AGENT, accounting=TrialAccounting("t"))
    assert caught.value.__cause__ is not None
    return caught.value.__cause__


@pytest.mark.parametrize("on_the_loop", [False, True], ids=["threads", "event-loop"])
def test_a_timeout_and_a_refused_connection_raise_what_litellm_raises(openai_server, on_the_loop):
    # _one_async_attempt is defined below, with the other event-loop tests.
    attempt = _one_async_attempt if on_the_loop else _one_attempt
    openai_server.set_default(Reply(content="late", delay=2.0))
    slow = _spec(openai_server, "aslow" if on_the_loop else "slow", timeout_s=0.2)
    lite, ours = attempt(slow, False), attempt(slow, True)
    assert type(ours) is type(lite)
    assert classify(ours) == classify(lite)
    assert classify(ours).kind == "timeout"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dead = ModelSpec("openai/x", api_base=f"http://127.0.0.1:{port}/v1", api_key="k")
    lite, ours = attempt(dead, False), attempt(dead, True)
    assert type(ours) is type(lite)
    assert classify(ours) == classify(lite)


def test_an_answer_that_is_not_a_completion_is_a_retryable_infrastructure_failure():
    from evals.engine.llm import direct

    class NotJSON:
        status_code = 200
        content = b"<html>proxy error</html>"
        text = "<html>proxy error</html>"

    route = direct.direct_route(
        model="openai/x",
        provider="openai",
        api_base="http://127.0.0.1:9/v1",
        api_key="k",
        params={},
        priced=False,
        timeout_s=1.0,
    )
    assert route is not None
    with pytest.raises(Exception) as caught:
        direct._answer(litellm_module(), route, NotJSON())
    verdict = classify(caught.value)
    assert verdict is not None and verdict.retryable


def test_acomplete_on_the_direct_path_matches_litellm(openai_server):
    async def both() -> list[Any]:
        out = []
        for direct in (False, True):
            openai_server.script("async", tool_call("get_order", {"order_id": "#W1"}, call_id="a"))
            out.append(
                await ModelClient(direct=direct).acomplete(
                    _spec(openai_server, "async"),
                    MESSAGES,
                    tools=TOOLS,
                    role=AGENT,
                    accounting=TrialAccounting("t"),
                )
            )
        return out

    lite, ours = asyncio.run(both())
    assert (ours.content, ours.tool_calls, ours.finish_reason) == (
        lite.content,
        lite.tool_calls,
        lite.finish_reason,
    )
    first, second = openai_server.requests[-2:]
    first.pop("_client_port"), second.pop("_client_port")
    assert first == second


def _one_async_attempt(spec: ModelSpec, direct: bool) -> BaseException:
    client = ModelClient(direct=direct, retry=RetryPolicy(max_attempts=1))

    async def call() -> None:
        await client.acomplete(spec, MESSAGES, role=AGENT, accounting=TrialAccounting("t"))

    with pytest.raises(Exception) as caught:
        asyncio.run(call())
    assert caught.value.__cause__ is not None
    return caught.value.__cause__


@pytest.mark.parametrize("reply", [rate_limited(retry_after=2.5), context_window_exceeded()])
def test_on_the_event_loop_an_error_answer_raises_what_litellm_raises(openai_server, reply):
    spec = _spec(openai_server, "aerr")
    openai_server.script("aerr", reply, reply)
    lite, ours = _one_async_attempt(spec, False), _one_async_attempt(spec, True)
    assert type(ours) is type(lite)
    assert classify(ours) == classify(lite)
