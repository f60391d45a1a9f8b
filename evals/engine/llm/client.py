"""The model client: the one chokepoint through which every LLM call of the engine goes.

    client = ModelClient()
    spec = ModelSpec("openai/my-agent", api_base="http://127.0.0.1:8000/v1", api_key="x")
    completion = client.complete(spec, messages, tools=tools, role=CallRole.AGENT,
                                 accounting=trial_accounting)

What it guarantees:
- one attempt = one `litellm.completion` with LiteLLM's and the OpenAI SDK's own retries
  off, so the retry policy here is the only one;
- transient infrastructure failures (429 — honouring Retry-After —, timeouts, connection
  errors, 5xx) are retried with exponential back-off and jitter, up to `max_attempts`, then
  raise `ModelCallExhausted` (an `InfrastructureError`);
- agent-caused outcomes (context window exceeded, content policy, bad request) are never
  retried: `AgentModelError`; a malformed tool-call JSON is not an error here at all — it is
  returned verbatim in the `ToolCall` and answered by the tool layer as the agent's mistake;
- no fallback to another model: the spec names one model; fallback parameters are rejected;
- every call, failed or not, appends a `CallRecord` to the trial's accounting;
- concurrency is bounded per provider (or per explicit `api_base`); a retry's back-off sleep
  holds no slot;
- the optional cache is namespaced per trial (see `cache.py`).

An unpriced OpenAI-compatible model (`openai/<name>` with an api_base and a key) is sent
without `litellm.completion`, through the same pool, its errors mapped by LiteLLM's own
chain (`direct.py`; `direct=False` or EVALS_LLM_DIRECT=0 keeps LiteLLM for every call).

CPU matters at 256 concurrent trials: LiteLLM is imported lazily (importing the engine stays
cheap), the per-spec keyword arguments and provider key are computed once, payloads are
passed through untouched (no copies, no re-serialisation unless the cache is on).

`ModelClient(event_loop=True)` (or EVALS_LLM_EVENT_LOOP=1 for the shared client): `complete`
hands each call to one asyncio event loop per process, on a thread of its own, and waits for
it. The trials keep their threads (the orchestrator, tools and oracle stay synchronous), but
LiteLLM's work and the HTTP exchange of every call in flight run on that one loop instead of
on hundreds of threads contending for the interpreter lock: at 500 ms and 128 calls in
flight per process, a call's CPU stays near its sequential cost instead of doubling.
"""

from __future__ import annotations

import functools
import json
import os
import random
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from evals.engine.llm import direct
from evals.engine.llm.accounting import CallRecord, CallRole, FailureClass, TrialAccounting
from evals.engine.llm.cache import ResponseCache, cache_key
from evals.engine.llm.direct import DirectAnswer, DirectRoute, direct_route
from evals.engine.llm.errors import (
    AgentModelError,
    ModelCallExhausted,
    ModelConfigurationError,
    classify,
)
from evals.engine.llm.limits import ProviderLimits
from evals.engine.llm.runtime import LoopThread, litellm_module
from evals.engine.llm.spec import Completion, ModelSpec, RetryPolicy
from evals.engine.messages import ToolCall


@dataclass(frozen=True, slots=True)
class _Prepared:
    kwargs: dict[str, Any]
    endpoint: str
    provider: str
    priced: bool  # LiteLLM's price table (or the suite's params) knows this model
    direct: DirectRoute | None  # sent without litellm.completion (see direct.py)


# LiteLLM's price for an unpriced model's tokens (see `_prepare`): never recorded as a cost.
_UNPRICED_RATE = 1e-15

_PRICE_PARAMS = ("input_cost_per_token", "output_cost_per_token", "cost_per_second")


def _priced(litellm: Any, spec: ModelSpec, provider: str) -> bool:
    if any(p in spec.params for p in _PRICE_PARAMS):
        return True
    return _in_price_table(litellm, spec.model, provider)


# Each trial builds its agent's and customer's specs afresh, so `_prepare` runs twice a
# trial; LiteLLM's routing and price-table look-ups give the same answer for the same name
# every time, yet showed in a profile of the CLI, so they are kept per process (a failed
# routing raises and is not kept).
@functools.lru_cache(maxsize=256)
def _route(litellm: Any, model: str, api_base: str | None) -> str:
    _, provider, _, _ = litellm.get_llm_provider(model=model, api_base=api_base)
    return str(provider)


@functools.lru_cache(maxsize=256)
def _in_price_table(litellm: Any, model: str, provider: str) -> bool:
    try:
        info = litellm.get_model_info(model=model, custom_llm_provider=provider)
    except Exception:  # LiteLLM raises its own "not mapped" errors; any failure = unknown
        return False
    return info.get("input_cost_per_token") is not None


class ModelClient:
    """Thread-safe; share one per run (it owns the per-provider semaphores).

    `event_loop=True`: `complete` runs each call as `acomplete` on this process's model-client
    event loop (see the module docstring); the limits then count per loop, that is per
    process, as they do for threads."""

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        limits: ProviderLimits | None = None,
        cache: ResponseCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        event_loop: bool = False,
        direct: bool | None = None,
    ) -> None:
        self.retry = retry or RetryPolicy()
        # Unpriced OpenAI-compatible models skip litellm.completion (direct.py); None: on
        # unless EVALS_LLM_DIRECT=0.
        self.direct = os.environ.get("EVALS_LLM_DIRECT", "1") != "0" if direct is None else direct
        self.limits = limits or ProviderLimits()
        self.cache = cache
        self.event_loop = event_loop
        self._sleep = sleep
        self._rng = rng or random.Random()
        # id(spec) -> prepared, for as long as the spec lives: specs are immutable, and each
        # trial's agent and customer make their own, so an entry is dropped when its spec is
        # collected (a long run would otherwise keep every trial's spec alive).
        self._prepared: dict[int, _Prepared] = {}
        self._loop_thread: LoopThread | None = None
        self._loop_lock = threading.Lock()

    def _loop(self) -> LoopThread:
        """This process's loop thread, started on first use (again in a forked child: the
        parent's thread does not exist there)."""
        loop = self._loop_thread
        if loop is None or loop.pid != os.getpid():
            with self._loop_lock:
                loop = self._loop_thread
                if loop is None or loop.pid != os.getpid():
                    loop = self._loop_thread = LoopThread()
                    # A client that is dropped stops its loop thread with it.
                    weakref.finalize(self, loop.stop)
        return loop

    def close(self) -> None:
        """Stop this client's event loop thread, if it started one (event_loop=True)."""
        if self._loop_thread is not None:
            self._loop_thread.stop()
            self._loop_thread = None

    # -- public ----------------------------------------------------------------------------
    def complete(
        self,
        spec: ModelSpec,
        messages: Sequence[Mapping[str, Any]],
        *,
        role: CallRole,
        accounting: TrialAccounting,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Completion:
        if self.event_loop:
            return self._loop().run(
                self.acomplete(spec, messages, role=role, accounting=accounting, tools=tools)
            )
        litellm = litellm_module()
        prepared, key, cached, kwargs = self._begin(
            spec, litellm, messages, tools, role, accounting
        )
        if cached is not None:
            return cached
        semaphore = self.limits.semaphore(prepared.endpoint)
        route = prepared.direct
        payload = b"" if route is None else direct.request_bytes(route, messages, tools)
        started = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            try:
                with semaphore:
                    if route is not None:
                        response: Any = direct.send(litellm, route, payload)
                    else:
                        response = litellm.completion(**kwargs)
                break
            except Exception as exc:
                self._sleep(
                    self._retry_wait(exc, spec, prepared, role, accounting, attempt, started)
                )
        return self._finish(response, key, spec, prepared, role, accounting, attempt, started)

    async def acomplete(
        self,
        spec: ModelSpec,
        messages: Sequence[Mapping[str, Any]],
        *,
        role: CallRole,
        accounting: TrialAccounting,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Completion:
        """`complete` for asyncio callers: `litellm.acompletion` on the running loop, the same
        retries, accounting, cache and errors. Hundreds of trials in flight cost one thread,
        not hundreds contending for the GIL. The concurrency limit counts per event loop
        (`ProviderLimits.async_semaphore`); the back-off is `asyncio.sleep`."""
        import asyncio

        litellm = litellm_module()
        prepared, key, cached, kwargs = self._begin(
            spec, litellm, messages, tools, role, accounting
        )
        if cached is not None:
            return cached
        semaphore = self.limits.async_semaphore(prepared.endpoint)
        route = prepared.direct
        payload = b"" if route is None else direct.request_bytes(route, messages, tools)
        started = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            try:
                async with semaphore:
                    if route is not None:
                        response: Any = await direct.asend(litellm, route, payload)
                    else:
                        response = await litellm.acompletion(**kwargs)
                break
            except Exception as exc:
                wait = self._retry_wait(exc, spec, prepared, role, accounting, attempt, started)
                await asyncio.sleep(wait)
        return self._finish(response, key, spec, prepared, role, accounting, attempt, started)

    # -- internals -------------------------------------------------------------------------
    def _begin(
        self,
        spec: ModelSpec,
        litellm: Any,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        role: CallRole,
        accounting: TrialAccounting,
    ) -> tuple[_Prepared, str | None, Completion | None, dict[str, Any]]:
        """What a call needs before it is sent (sync or async alike): the prepared model,
        the cache key, the cached completion when the cache answers, and LiteLLM's kwargs."""
        prepared = self._prepare(spec, litellm, role, accounting)
        key = self._cache_key(spec, messages, tools, role, accounting)
        if key is not None:
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                return prepared, key, self._from_cache(hit, spec, prepared, role, accounting), {}
        if prepared.direct is not None:
            return prepared, key, None, {}
        return prepared, key, None, self._call_kwargs(prepared, messages, tools)

    def _cache_key(
        self,
        spec: ModelSpec,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        role: CallRole,
        accounting: TrialAccounting,
    ) -> str | None:
        if self.cache is None:
            return None
        return cache_key(
            trial_id=accounting.trial_id,
            role=role.value,
            model=spec.model,
            api_base=spec.api_base,
            messages=messages,
            tools=tools,
            params=spec.params,
        )

    @staticmethod
    def _call_kwargs(
        prepared: _Prepared,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
    ) -> dict[str, Any]:
        kwargs = dict(prepared.kwargs)
        kwargs["messages"] = messages
        if tools:
            kwargs["tools"] = tools
        return kwargs

    def _retry_wait(
        self,
        exc: Exception,
        spec: ModelSpec,
        prepared: _Prepared,
        role: CallRole,
        accounting: TrialAccounting,
        attempt: int,
        started: float,
    ) -> float:
        """The back-off before the next attempt, or raise (recording the failed call)."""
        verdict = classify(exc)
        if verdict is None:
            raise exc
        wait = None
        policy = spec.retry or self.retry
        if verdict.retryable and attempt < policy.max_attempts:
            wait = policy.delay(attempt, verdict.retry_after, self._rng)
        if wait is None:
            self._fail(exc, verdict, spec, prepared, role, accounting, attempt, started)
        return wait

    def _finish(
        self,
        response: Any,
        key: str | None,
        spec: ModelSpec,
        prepared: _Prepared,
        role: CallRole,
        accounting: TrialAccounting,
        attempt: int,
        started: float,
    ) -> Completion:
        completion = self._parse(response, spec, prepared, role, attempt, started)
        accounting.add(completion.record)
        if key is not None and self.cache is not None:
            self.cache.put(key, _to_cache(completion))
        return completion

    def _prepare(
        self, spec: ModelSpec, litellm: Any, role: CallRole, accounting: TrialAccounting
    ) -> _Prepared:
        found = self._prepared.get(id(spec))
        if found is not None:
            return found
        try:
            provider = _route(litellm, spec.model, spec.api_base)
        except Exception as exc:
            accounting.add(
                CallRecord(
                    role,
                    spec.model,
                    "",
                    "",
                    error_class=type(exc).__name__,
                    failure=FailureClass.INFRASTRUCTURE,
                )
            )
            raise ModelConfigurationError(
                f"LiteLLM cannot route model {spec.model!r}: {exc}", error_class=type(exc).__name__
            ) from exc
        kwargs: dict[str, Any] = {
            "model": spec.model,
            "timeout": spec.timeout_s,
            "num_retries": 0,  # LiteLLM's own retries: off, ours decide
            "max_retries": 0,  # the OpenAI SDK's retries: off
            **spec.params,
        }
        if spec.api_base:
            kwargs["api_base"] = spec.api_base
        api_key = spec.resolved_api_key()
        if api_key:
            kwargs["api_key"] = api_key
        priced = _priced(litellm, spec, provider)
        if not priced:
            # An unpriced model (a vLLM server, a team's agent service): LiteLLM would search
            # its price table on every call to find nothing, and a price of exactly zero
            # sends every answer through its zero-cost diagnostic, which searches the table
            # again. A token price too small to matter takes neither path (about 0.4 ms of
            # CPU a call less than either, bench/latency.py); the cost LiteLLM computes from
            # it is dropped in `_parse`, and the record says the cost is unknown.
            kwargs["input_cost_per_token"] = _UNPRICED_RATE
            kwargs["output_cost_per_token"] = _UNPRICED_RATE
        route = None
        if self.direct and not direct.litellm_callbacks(litellm):
            route = direct_route(
                model=spec.model,
                provider=provider,
                api_base=spec.api_base,
                api_key=api_key,
                params=spec.params,
                priced=priced,
                timeout_s=spec.timeout_s,
            )
        prepared = _Prepared(kwargs, spec.api_base or provider, provider, priced, route)
        key = id(spec)
        self._prepared[key] = prepared
        # Runs when the spec is collected, before its id can be reused by another object.
        weakref.finalize(spec, self._prepared.pop, key, None)
        return prepared

    def _parse(
        self,
        response: Any,
        spec: ModelSpec,
        prepared: _Prepared,
        role: CallRole,
        attempts: int,
        started: float,
    ) -> Completion:
        if isinstance(response, DirectAnswer):
            return self._parse_direct(response, spec, prepared, role, attempts, started)
        choice = response.choices[0]
        message = choice.message
        calls: list[ToolCall] = []
        malformed = 0
        for i, call in enumerate(message.tool_calls or ()):
            arguments = call.function.arguments or ""
            try:
                json.loads(arguments or "{}")
            except ValueError:
                malformed += 1
            calls.append(ToolCall(call.id or f"call_{i}", call.function.name or "", arguments))
        usage = getattr(response, "usage", None)
        cost = response._hidden_params.get("response_cost")
        record = CallRecord(
            role=role,
            model=spec.model,
            resolved_model=response.model or spec.model,
            provider=prepared.provider,
            tokens_in=getattr(usage, "prompt_tokens", 0) or 0,
            tokens_out=getattr(usage, "completion_tokens", 0) or 0,
            cost=float(cost or 0.0) if prepared.priced else 0.0,
            cost_known=prepared.priced and cost is not None,
            latency_s=time.perf_counter() - started,
            retries=attempts - 1,
            malformed_tool_calls=malformed,
        )
        return Completion(message.content or "", tuple(calls), choice.finish_reason or "", record)

    @staticmethod
    def _parse_direct(
        answer: DirectAnswer,
        spec: ModelSpec,
        prepared: _Prepared,
        role: CallRole,
        attempts: int,
        started: float,
    ) -> Completion:
        calls: list[ToolCall] = []
        malformed = 0
        for call_id, name, arguments in answer.tool_calls:
            try:
                json.loads(arguments or "{}")
            except ValueError:
                malformed += 1
            calls.append(ToolCall(call_id, name, arguments))
        record = CallRecord(
            role=role,
            model=spec.model,
            resolved_model=answer.model,
            provider=prepared.provider,
            tokens_in=answer.tokens_in,
            tokens_out=answer.tokens_out,
            cost=0.0,  # only unpriced models take the direct path
            cost_known=False,
            latency_s=time.perf_counter() - started,
            retries=attempts - 1,
            malformed_tool_calls=malformed,
        )
        return Completion(answer.content, tuple(calls), answer.finish_reason, record)

    def _fail(
        self,
        exc: Exception,
        verdict: Any,
        spec: ModelSpec,
        prepared: _Prepared,
        role: CallRole,
        accounting: TrialAccounting,
        attempts: int,
        started: float,
    ) -> NoReturn:
        error_class = type(exc).__name__
        accounting.add(
            CallRecord(
                role=role,
                model=spec.model,
                resolved_model="",
                provider=prepared.provider,
                latency_s=time.perf_counter() - started,
                retries=attempts - 1,
                error_class=error_class,
                failure=verdict.failure,
            )
        )
        message = f"{spec.model} ({role.value}): {verdict.kind} after {attempts} attempt(s): {exc}"
        if verdict.failure is FailureClass.AGENT:
            raise AgentModelError(
                message, kind=verdict.kind, error_class=error_class, role=role.value
            ) from exc
        if verdict.retryable:
            raise ModelCallExhausted(message, error_class=error_class, attempts=attempts) from exc
        raise ModelConfigurationError(message, error_class=error_class) from exc

    def _from_cache(
        self,
        hit: Mapping[str, Any],
        spec: ModelSpec,
        prepared: _Prepared,
        role: CallRole,
        accounting: TrialAccounting,
    ) -> Completion:
        record = CallRecord(
            role=role,
            model=spec.model,
            resolved_model=hit.get("model", spec.model),
            provider=prepared.provider,
            tokens_in=hit.get("tokens_in", 0),
            tokens_out=hit.get("tokens_out", 0),
            cached=True,
        )
        accounting.add(record)
        calls = tuple(ToolCall.from_dict(c) for c in hit.get("tool_calls", ()))
        return Completion(hit.get("content", ""), calls, hit.get("finish_reason", ""), record)


def _to_cache(completion: Completion) -> dict[str, Any]:
    return {
        "content": completion.content,
        "tool_calls": [c.to_dict() for c in completion.tool_calls],
        "finish_reason": completion.finish_reason,
        "model": completion.record.resolved_model,
        "tokens_in": completion.record.tokens_in,
        "tokens_out": completion.record.tokens_out,
    }
