"""The process-wide model client the adapters share (it owns the per-provider semaphores,
so every trial of every run in this process counts against the same limits)."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.llm.client import ModelClient
from evals.engine.llm.limits import ProviderLimits
from evals.engine.llm.spec import ModelSpec, RetryPolicy

_client: ModelClient | None = None
_lock = threading.Lock()

# Keys of the suite's agent/user params that configure the connection, not the provider call.
SPEC_KEYS = ("api_base", "api_key_env", "api_key", "timeout_s")


# Without EVALS_LLM_CONCURRENCY, a provider's calls in flight at once in a process.
DEFAULT_CONCURRENCY = 64
# Without EVALS_LLM_EVENT_LOOP, a run puts its calls on one event loop per process from this
# many trials in flight per process (see `client_for_run`).
EVENT_LOOP_FROM = 32


def _env_event_loop() -> bool | None:
    value = os.environ.get("EVALS_LLM_EVENT_LOOP", "")
    return None if value == "" else value in ("1", "true")


def default_client() -> ModelClient:
    """Concurrency per provider from EVALS_LLM_CONCURRENCY (default 64); calls on one event
    loop per process when EVALS_LLM_EVENT_LOOP=1 (see evals.engine.llm.client)."""
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                limit = int(os.environ.get("EVALS_LLM_CONCURRENCY", str(DEFAULT_CONCURRENCY)))
                _client = ModelClient(
                    limits=ProviderLimits(default=limit), event_loop=bool(_env_event_loop())
                )
    return _client


def client_for_run(*, in_flight: int, per_process: int) -> ModelClient:
    """The model client for a run with `in_flight` trials at once, `per_process` of them in
    each process, sized so the defaults never hold the run back:

    - the per-provider limit is EVALS_LLM_CONCURRENCY when set, else the larger of 64 and
      `in_flight`: a trial has at most one call in flight (agent and customer take turns), so
      asking for 256 trials at once means 256 calls at once — a cap of 64 the user never set
      would quietly make such a run four times slower than asked;
    - calls run on one event loop per process (EVALS_LLM_EVENT_LOOP unset) from
      `EVENT_LOOP_FROM` trials per process up: hundreds of threads each running LiteLLM
      contend for the interpreter lock and a call's CPU doubles, while the loop keeps it near
      its sequential cost (docs/agents.md, Throughput).

    Not installed: pass it to `set_default_client`."""
    env_limit = os.environ.get("EVALS_LLM_CONCURRENCY")
    limit = int(env_limit) if env_limit else max(DEFAULT_CONCURRENCY, in_flight)
    event_loop = _env_event_loop()
    return ModelClient(
        limits=ProviderLimits(default=limit),
        event_loop=per_process >= EVENT_LOOP_FROM if event_loop is None else event_loop,
    )


def current_client() -> ModelClient | None:
    """The installed client, without creating one."""
    return _client


def set_default_client(client: ModelClient | None) -> None:
    """Install the client the adapters use (tests, benchmarks, a run with its own limits)."""
    global _client
    with _lock:
        _client = client


def spec_from_params(
    model: str, params: Mapping[str, Any], *, drop: tuple[str, ...] = ()
) -> ModelSpec:
    """A ModelSpec from a suite's `agent_params` / `user_params`: connection keys go to the
    spec, `drop` keys are the adapter's own, everything else goes to the provider."""
    rest = {k: v for k, v in params.items() if k not in drop}
    spec_kwargs = {k: rest.pop(k) for k in SPEC_KEYS if k in rest}
    retry = _retry_policy(model, rest.pop("retries", None), rest.pop("retry_delay_s", None))
    try:
        return ModelSpec(model, params=rest, retry=retry, **spec_kwargs)
    except TypeError as exc:
        raise EngineError(f"bad model parameters for {model!r}: {exc}") from exc


def _retry_policy(model: str, retries: Any, delay: Any) -> RetryPolicy | None:
    """The params' `retries` (after the first attempt) and `retry_delay_s` (the first
    back-off, doubling after) as a policy for this model's calls; None: the client's own."""
    if retries is None and delay is None:
        return None
    default = RetryPolicy()
    try:
        attempts = default.max_attempts if retries is None else int(retries) + 1
        base = default.base_delay_s if delay is None else float(delay)
    except (TypeError, ValueError):
        raise EngineError(
            f"bad retry parameters for {model!r}: retries {retries!r}, retry_delay_s {delay!r}"
        ) from None
    if attempts < 1 or base < 0:
        raise EngineError(f"bad retry parameters for {model!r}: retries and delay must be >= 0")
    return RetryPolicy(max_attempts=attempts, base_delay_s=base)


def usage_numbers(totals: Any) -> dict[str, float]:
    if totals is None:
        return {}
    return {
        "calls": totals.calls,
        "tokens_in": totals.tokens_in,
        "tokens_out": totals.tokens_out,
        "cost_usd": totals.cost,
        "cost_unknown_calls": totals.cost_unknown_calls,
        "llm_seconds": totals.latency_s,
        "retries": totals.retries,
        "cached": totals.cached,
    }
