"""The model client against the local OpenAI-compatible server: retries, classification,
accounting, cache and concurrency limits."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from evals.engine.errors import EngineError, InfrastructureError
from evals.engine.llm import (
    AgentModelError,
    CallRole,
    FailureClass,
    MemoryCache,
    ModelCallExhausted,
    ModelClient,
    ModelConfigurationError,
    ModelSpec,
    ProviderLimits,
    RetryPolicy,
    TrialAccounting,
)
from evals.engine.llm.runtime import reset_http_pool_after_fork
from tests.support.openai_server import (
    OpenAIServer,
    Reply,
    bad_request,
    context_window_exceeded,
    rate_limited,
    server_error,
    text,
    tool_call,
)

T = TypeVar("T")

MESSAGES = [{"role": "system", "content": "You help."}, {"role": "user", "content": "Hi"}]
AGENT = CallRole.AGENT


class Sleeps(list[float]):
    """A sleep that records the delays instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def spec(server: OpenAIServer, name: str = "scripted", **kw: object) -> ModelSpec:
    return ModelSpec(f"openai/{name}", api_base=server.url, api_key="test", **kw)  # type: ignore[arg-type]


def client(sleeps: Sleeps | None = None, **kw: object) -> ModelClient:
    return ModelClient(sleep=sleeps if sleeps is not None else Sleeps(), **kw)  # type: ignore[arg-type]


def test_it_returns_text_and_records_tokens_latency_and_no_retries(openai_server):
    openai_server.script("scripted", text("Hello!", prompt_tokens=123, completion_tokens=45))
    acc = TrialAccounting("t1")
    result = client().complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc)
    assert result.content == "Hello!"
    assert result.tool_calls == ()
    (record,) = acc.records
    assert (record.tokens_in, record.tokens_out, record.retries) == (123, 45, 0)
    assert record.role is AGENT and record.provider == "openai"
    assert record.resolved_model == "scripted"
    assert record.latency_s > 0
    assert record.failure is FailureClass.NONE


def test_it_retries_a_429_waiting_at_least_the_retry_after(openai_server):
    openai_server.script("scripted", rate_limited(retry_after=2.5), text("after the wait"))
    sleeps = Sleeps()
    acc = TrialAccounting("t1")
    result = client(sleeps).complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc)
    assert result.content == "after the wait"
    assert len(sleeps) == 1 and 2.5 <= sleeps[0] <= 2.75
    assert acc.records[0].retries == 1
    assert len(openai_server.requests) == 2


def test_it_gives_up_at_once_when_retry_after_is_beyond_the_cap(openai_server):
    openai_server.script("scripted", rate_limited(retry_after=3600), text("never"))
    sleeps = Sleeps()
    acc = TrialAccounting("t1")
    with pytest.raises(ModelCallExhausted):
        client(sleeps).complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc)
    assert sleeps == [] and len(openai_server.requests) == 1


def test_it_retries_a_500_with_growing_backoff_then_succeeds(openai_server):
    openai_server.script("scripted", server_error(500), server_error(503), text("recovered"))
    sleeps = Sleeps()
    retry = RetryPolicy(base_delay_s=1.0)
    acc = TrialAccounting("t1")
    result = client(sleeps, retry=retry).complete(
        spec(openai_server), MESSAGES, role=AGENT, accounting=acc
    )
    assert result.content == "recovered"
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0
    assert acc.records[0].retries == 2


def test_it_raises_an_infrastructure_error_when_timeouts_exhaust_the_retries(openai_server):
    openai_server.set_default(Reply(content="too late", delay=2.0))
    acc = TrialAccounting("t1")
    with pytest.raises(InfrastructureError) as caught:
        client(retry=RetryPolicy(max_attempts=3)).complete(
            spec(openai_server, timeout_s=0.2), MESSAGES, role=AGENT, accounting=acc
        )
    assert isinstance(caught.value, ModelCallExhausted)
    assert caught.value.attempts == 3
    assert len(openai_server.requests) == 3
    (record,) = acc.records
    assert record.failure is FailureClass.INFRASTRUCTURE
    assert record.retries == 2 and record.error_class == "Timeout"


def test_it_retries_connection_errors_then_raises_an_infrastructure_error():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dead = ModelSpec("openai/x", api_base=f"http://127.0.0.1:{port}/v1", api_key="k")
    sleeps = Sleeps()
    acc = TrialAccounting("t1")
    with pytest.raises(ModelCallExhausted):
        client(sleeps, retry=RetryPolicy(max_attempts=2)).complete(
            dead, MESSAGES, role=AGENT, accounting=acc
        )
    # LiteLLM reports a refused connection as APIConnectionError or InternalServerError.
    assert len(sleeps) == 1 and acc.records[0].failure is FailureClass.INFRASTRUCTURE


def test_it_returns_malformed_tool_call_json_to_the_agent_without_retrying(openai_server):
    openai_server.script("scripted", tool_call("find_order", '{"order_id": "#W1'))
    acc = TrialAccounting("t1")
    result = client().complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc)
    (call,) = result.tool_calls
    assert call.name == "find_order" and call.arguments == '{"order_id": "#W1'
    assert acc.records[0].malformed_tool_calls == 1
    assert len(openai_server.requests) == 1


def test_it_returns_well_formed_tool_calls_verbatim(openai_server):
    openai_server.script("scripted", tool_call("find_order", {"order_id": "#W1"}, call_id="c9"))
    tools = [{"type": "function", "function": {"name": "find_order", "parameters": {}}}]
    result = client().complete(
        spec(openai_server), MESSAGES, tools=tools, role=AGENT, accounting=TrialAccounting("t")
    )
    assert result.tool_calls[0].to_dict() == {
        "id": "c9",
        "name": "find_order",
        "arguments": '{"order_id": "#W1"}',
    }
    assert result.finish_reason == "tool_calls"
    assert openai_server.requests[0]["tools"] == tools


def test_it_never_retries_a_context_window_exceeded(openai_server):
    openai_server.script("scripted", context_window_exceeded(), text("unused"))
    acc = TrialAccounting("t1")
    with pytest.raises(AgentModelError) as caught:
        client().complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc)
    assert not isinstance(caught.value, InfrastructureError)
    assert caught.value.kind == "context_window_exceeded"
    assert len(openai_server.requests) == 1
    assert acc.records[0].failure is FailureClass.AGENT


def test_it_never_retries_a_bad_request(openai_server):
    openai_server.script("scripted", bad_request(), text("unused"))
    with pytest.raises(AgentModelError) as caught:
        client().complete(
            spec(openai_server), MESSAGES, role=AGENT, accounting=TrialAccounting("t")
        )
    assert caught.value.kind == "bad_request"
    assert len(openai_server.requests) == 1


def test_it_treats_an_authentication_failure_as_infrastructure_without_retry(openai_server):
    openai_server.script("scripted", Reply(status=401, error_message="Incorrect API key"))
    with pytest.raises(ModelConfigurationError):
        client().complete(
            spec(openai_server), MESSAGES, role=AGENT, accounting=TrialAccounting("t")
        )
    assert len(openai_server.requests) == 1


def test_it_rejects_fallback_and_retry_parameters_in_a_spec():
    with pytest.raises(EngineError, match="never falls back"):
        ModelSpec("gpt-4.1", params={"fallbacks": ["gpt-4o-mini"]})
    with pytest.raises(EngineError):
        ModelSpec("gpt-4.1", params={"num_retries": 3})


def test_it_sends_the_suite_parameters_to_the_provider(openai_server):
    s = spec(openai_server, params={"temperature": 0.0, "max_tokens": 64, "seed": 7})
    client().complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("t"))
    sent = openai_server.requests[0]
    assert (sent["temperature"], sent["max_tokens"], sent["seed"]) == (0.0, 64, 7)
    assert sent["messages"] == MESSAGES


def test_the_cache_is_off_by_default(openai_server):
    c = client()
    acc = TrialAccounting("t1")
    c.complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc)
    c.complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc)
    assert c.cache is None
    assert len(openai_server.requests) == 2
    assert not any(r.cached for r in acc.records)


def test_the_cache_replays_within_a_trial_but_never_across_trials_or_roles(openai_server):
    answers = iter(f"answer {i}" for i in range(10))
    openai_server.set_handler(lambda body, headers: text(next(answers)))
    c = client(cache=MemoryCache())
    s = spec(openai_server)
    trial1, trial2 = TrialAccounting("task-1/trial-1"), TrialAccounting("task-1/trial-2")
    first = c.complete(s, MESSAGES, role=AGENT, accounting=trial1)
    again = c.complete(s, MESSAGES, role=AGENT, accounting=trial1)
    other_trial = c.complete(s, MESSAGES, role=AGENT, accounting=trial2)
    other_role = c.complete(s, MESSAGES, role=CallRole.USER, accounting=trial1)
    assert again.content == first.content == "answer 0"
    assert again.record.cached
    assert other_trial.content == "answer 1"
    assert other_role.content == "answer 2"
    assert len(openai_server.requests) == 3


def test_it_bounds_concurrent_calls_per_endpoint(openai_server):
    openai_server.set_default(Reply(content="slow", delay=0.15))
    s = spec(openai_server)
    c = client(limits=ProviderLimits({s.api_base or "": 3}, default=100))
    errors: list[BaseException] = []

    def call() -> None:
        try:
            c.complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("t"))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(openai_server.requests) == 12
    assert openai_server.max_in_flight == 3


def test_accounting_sums_per_role_and_flags_unknown_cost(openai_server):
    openai_server.script("gpt-4o-mini", text("a", prompt_tokens=1000, completion_tokens=100))
    openai_server.script("my-user-model", text("b", prompt_tokens=10, completion_tokens=5))
    c = client()
    acc = TrialAccounting("t1")
    c.complete(spec(openai_server, "gpt-4o-mini"), MESSAGES, role=AGENT, accounting=acc)
    c.complete(spec(openai_server, "my-user-model"), MESSAGES, role=CallRole.USER, accounting=acc)
    totals = acc.totals()
    agent, user = totals[CallRole.AGENT], totals[CallRole.USER]
    assert agent.cost > 0 and agent.cost_unknown_calls == 0
    assert user.cost == 0 and user.cost_unknown_calls == 1
    assert (user.tokens_in, user.tokens_out) == (10, 5)
    assert acc.resolved_models(CallRole.USER) == ["my-user-model"]
    usage = acc.usage()
    assert usage["agent.tokens_in"] == 1000 and usage["user.calls"] == 1


def test_suite_pricing_makes_a_self_hosted_models_cost_known(openai_server):
    openai_server.script("vllm-model", text("a", prompt_tokens=1000, completion_tokens=0))
    s = spec(
        openai_server,
        "vllm-model",
        params={"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6},
    )
    acc = TrialAccounting("t1")
    client().complete(s, MESSAGES, role=AGENT, accounting=acc)
    assert acc.records[0].cost_known
    assert acc.records[0].cost == pytest.approx(1e-3)


def test_importing_the_client_does_not_import_litellm():
    code = "import sys, evals.engine.llm; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_sync_calls_keep_their_connections_alive_past_twenty_in_flight(openai_server):
    # LiteLLM's own httpx client keeps 20 connections alive: after a wave of 40 concurrent
    # calls, the next wave would open about 20 new ones. The client's pool keeps them all.
    openai_server.set_default(Reply(content="slow", delay=0.3))
    s = spec(openai_server)
    c = client(limits=ProviderLimits(default=100))

    def wave() -> set[int]:
        barrier = threading.Barrier(40)
        start = len(openai_server.requests)

        def call() -> None:
            barrier.wait()
            c.complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("t"))

        threads = [threading.Thread(target=call) for _ in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return {r["_client_port"] for r in openai_server.requests[start:]}

    first = wave()
    second = wave()
    assert len(openai_server.requests) == 80
    assert len(first) > 20  # the first wave did overlap past LiteLLM's keep-alive cap
    # How many connections each wave opened depends on how many calls overlapped, which a
    # loaded machine decides; what the pool promises is that the second wave reused every
    # connection the first left open, as far as it had calls to put on them (LiteLLM's own
    # client would have dropped all but 20).
    reused = len(second & first)
    assert reused >= min(len(first), len(second)) - 3, (len(first), len(second), reused)


def test_a_forked_child_never_writes_to_the_parents_connections(openai_server):
    # The parent's call leaves a kept-alive connection in its pool and an SDK client around
    # that pool in LiteLLM's client cache. A child forked afterwards must open its own
    # connection: on a shared socket two processes' requests interleave (seen as a request
    # whose body was another request's headers) and each can read the other's answer.
    openai_server.set_default(Reply(content="hi"))
    s = spec(openai_server)
    c = client()
    c.complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("parent"))
    (parent_port,) = {r["_client_port"] for r in openai_server.requests}

    def child() -> None:
        try:
            reset_http_pool_after_fork()
            client().complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("child"))
        except BaseException:
            os._exit(1)
        os._exit(0)

    proc = multiprocessing.get_context("fork").Process(target=child)
    proc.start()
    proc.join(30)
    assert proc.exitcode == 0
    assert len(openai_server.requests) == 2
    assert openai_server.requests[1]["_client_port"] != parent_port
    # and the parent's own connection is still its own, alive
    c.complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("parent"))
    assert openai_server.requests[2]["_client_port"] == parent_port


def run(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run` on a thread of its own: some suites leave a loop running on this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def test_acomplete_returns_text_and_records_the_call(openai_server):
    openai_server.script("scripted", text("Hello async", prompt_tokens=12, completion_tokens=3))
    acc = TrialAccounting("t1")
    result = run(client().acomplete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc))
    assert result.content == "Hello async"
    (record,) = acc.records
    assert (record.tokens_in, record.tokens_out, record.retries) == (12, 3, 0)
    assert record.provider == "openai" and record.resolved_model == "scripted"


def test_acomplete_retries_a_429_then_succeeds(openai_server):
    openai_server.script("scripted", rate_limited(retry_after=0.01), text("after the wait"))
    acc = TrialAccounting("t1")
    result = run(client().acomplete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc))
    assert result.content == "after the wait"
    assert acc.records[0].retries == 1
    assert len(openai_server.requests) == 2


def test_acomplete_never_retries_a_context_window_exceeded(openai_server):
    openai_server.script("scripted", context_window_exceeded(), text("never"))
    acc = TrialAccounting("t1")
    with pytest.raises(AgentModelError):
        run(client().acomplete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc))
    assert len(openai_server.requests) == 1
    assert acc.records[0].failure is FailureClass.AGENT


def test_acomplete_bounds_concurrent_calls_per_endpoint_on_one_loop(openai_server):
    openai_server.set_default(Reply(content="slow", delay=0.15))
    s = spec(openai_server)
    c = client(limits=ProviderLimits({s.api_base or "": 3}, default=100))

    async def main() -> None:
        await asyncio.gather(
            *(
                c.acomplete(s, MESSAGES, role=AGENT, accounting=TrialAccounting(f"t{i}"))
                for i in range(12)
            )
        )

    run(main())
    assert len(openai_server.requests) == 12
    assert openai_server.max_in_flight == 3


def test_the_test_server_answers_a_body_that_is_not_json_with_a_400(openai_server):
    # As a provider does; before, the handler thread raised and dropped the connection,
    # which a client saw as a connection error and retried.
    request = urllib.request.Request(
        f"{openai_server.url}/chat/completions", data=b"POST /v1/chat", method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 400
    assert b"not JSON" in caught.value.read()


# -- event_loop=True: each call on this process's model-client loop ------------------------


def test_on_the_event_loop_complete_returns_the_same_completion_and_record(openai_server):
    openai_server.script("scripted", text("Hello loop", prompt_tokens=9, completion_tokens=2))
    acc = TrialAccounting("t1")
    result = client(event_loop=True).complete(
        spec(openai_server), MESSAGES, role=AGENT, accounting=acc
    )
    assert result.content == "Hello loop"
    (record,) = acc.records
    assert (record.tokens_in, record.tokens_out, record.retries) == (9, 2, 0)


def test_on_the_event_loop_a_429_is_retried_and_an_agent_error_is_not(openai_server):
    openai_server.script("scripted", rate_limited(retry_after=0.01), text("after the wait"))
    c = client(event_loop=True)
    acc = TrialAccounting("t1")
    assert c.complete(spec(openai_server), MESSAGES, role=AGENT, accounting=acc).content == (
        "after the wait"
    )
    assert acc.records[0].retries == 1
    openai_server.script("scripted", context_window_exceeded())
    with pytest.raises(AgentModelError):
        c.complete(spec(openai_server), MESSAGES, role=AGENT, accounting=TrialAccounting("t2"))


def test_on_the_event_loop_many_threads_share_one_loop_and_stay_concurrent(openai_server):
    # 40 trial threads at once: every call runs on the one loop thread, all 40 in flight
    # together (the loop does not serialise them), each thread gets its own answer.
    openai_server.set_default(Reply(content="slow", delay=0.3))
    c = client(event_loop=True, limits=ProviderLimits(default=100))
    s = spec(openai_server)
    barrier = threading.Barrier(40)
    answers: list[str] = []

    def call() -> None:
        barrier.wait()
        answers.append(c.complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("t")).content)

    threads = [threading.Thread(target=call) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == ["slow"] * 40
    assert openai_server.max_in_flight >= 30
    loop = c._loop_thread
    assert loop is not None and loop._thread.is_alive()
    assert c._loop() is loop  # one loop for every thread of the process
    c.close()
    assert not loop._thread.is_alive()


def test_on_the_event_loop_a_forked_child_starts_a_loop_of_its_own(openai_server):
    # The parent's loop thread does not exist in a forked child; a call there must not wait
    # forever on it.
    openai_server.set_default(Reply(content="hi"))
    s = spec(openai_server)
    c = client(event_loop=True)
    c.complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("parent"))

    def child() -> None:
        try:
            reset_http_pool_after_fork()
            ok = c.complete(s, MESSAGES, role=AGENT, accounting=TrialAccounting("child"))
            os._exit(0 if ok.content == "hi" else 1)
        except BaseException:
            os._exit(1)

    proc = multiprocessing.get_context("fork").Process(target=child)
    proc.start()
    proc.join(30)
    assert proc.exitcode == 0


def test_the_shared_client_runs_on_the_event_loop_when_asked(monkeypatch):
    from evals.engine.llm import shared

    monkeypatch.setenv("EVALS_LLM_EVENT_LOOP", "1")
    shared.set_default_client(None)
    try:
        assert shared.default_client().event_loop
    finally:
        shared.set_default_client(None)


def test_the_client_keeps_nothing_of_a_trial_after_its_model_spec_is_gone(openai_server):
    """Each trial's agent and customer make their own spec: the client's per-spec preparation
    must go with them, or a 10,000-trial run keeps 20,000 specs alive."""
    import gc

    openai_server.set_default(text("ok"))
    c = ModelClient()
    for trial in range(40):
        trial_spec = spec(openai_server, "agent-x")
        c.complete(trial_spec, MESSAGES, role=AGENT, accounting=TrialAccounting(f"t{trial}"))
        del trial_spec
    gc.collect()

    assert len(c._prepared) <= 1  # at most the last one, if the interpreter still holds it
    kept = spec(openai_server, "agent-x")
    c.complete(kept, MESSAGES, role=AGENT, accounting=TrialAccounting("live"))
    c.complete(kept, MESSAGES, role=AGENT, accounting=TrialAccounting("live"))
    gc.collect()
    assert id(kept) in c._prepared  # a spec still in use keeps its preparation
