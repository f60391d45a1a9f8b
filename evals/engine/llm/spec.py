"""What a model call is asked with and what it gives back: the model's spec, the retry
policy, and the completion (text, tool calls, and the call's record)."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.llm.accounting import CallRecord
from evals.engine.messages import Message, ToolCall

# Parameters that would let LiteLLM retry or silently answer with another model.
_FORBIDDEN_PARAMS = frozenset(
    {
        "fallbacks",
        "context_window_fallback_dict",
        "model_list",
        "num_retries",
        "max_retries",
        "messages",
        "tools",
        "model",
        "api_base",
        "api_key",
        "timeout",
    }
)


@dataclass(frozen=True)
class ModelSpec:
    """One model as a suite names it. `params` go to the provider (temperature, max_tokens,
    seed, top_p, extra_headers, and LiteLLM pricing overrides such as
    `input_cost_per_token` for self-hosted models). The API key is read from `api_key_env`
    (or given directly, e.g. in tests); it is never serialised."""

    model: str
    api_base: str | None = None
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)
    params: Mapping[str, Any] = field(default_factory=dict)
    timeout_s: float = 60.0
    # This model's retries (the suite's `retries` / `retry_delay_s`); None: the client's.
    retry: RetryPolicy | None = None

    def __post_init__(self) -> None:
        if not self.model:
            raise EngineError("a model spec needs a model name")
        bad = sorted(_FORBIDDEN_PARAMS & set(self.params))
        if bad:
            raise EngineError(
                f"model params {bad} are not allowed: the model client owns retries and "
                "never falls back to another model"
            )
        if self.timeout_s <= 0:
            raise EngineError("timeout_s must be positive")
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def resolved_api_key(self) -> str | None:
        if self.api_key is not None:
            return self.api_key
        if self.api_key_env:
            return os.environ.get(self.api_key_env)
        return None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.model, "timeout_s": self.timeout_s}
        if self.api_base:
            out["api_base"] = self.api_base
        if self.api_key_env:
            out["api_key_env"] = self.api_key_env
        if self.params:
            out["params"] = {k: v for k, v in self.params.items() if k != "extra_headers"}
        return out


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts include the first one. Back-off before retry n (n = 1, 2, ...) is
    base * 2**(n-1) capped at max_delay, half fixed and half jittered; a Retry-After from
    the provider wins when it is longer, and one beyond `max_retry_after_s` ends the call
    at once (waiting an hour inside a trial helps nobody)."""

    max_attempts: int = 5
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise EngineError("max_attempts must be >= 1")

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float | None:
        if retry_after is not None and retry_after > self.max_retry_after_s:
            return None
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (retry - 1))
        if retry_after is not None:
            # Honour the provider's wait, plus up to 10% so woken callers do not stampede.
            return retry_after * (1 + rng.uniform(0, 0.1))
        return backoff / 2 + rng.uniform(0, backoff / 2)


@dataclass(frozen=True, slots=True)
class Completion:
    """An assistant turn as the model produced it; tool-call arguments stay raw JSON text."""

    content: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str
    record: CallRecord

    def to_message(self) -> Message:
        return Message.assistant(self.content, self.tool_calls)
