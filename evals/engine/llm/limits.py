"""Concurrency limits per provider: one semaphore per key, created on first use.

The key is the provider LiteLLM routes to ("openai", "anthropic", ...) or, for a model with
an explicit `api_base` (a vLLM server, a team's agent service), that endpoint: two
OpenAI-compatible services do not share one rate limit.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping


class ProviderLimits:
    def __init__(self, limits: Mapping[str, int] | None = None, *, default: int = 64) -> None:
        if default < 1 or any(v < 1 for v in (limits or {}).values()):
            raise ValueError("concurrency limits must be >= 1")
        self.default = default
        self.limits = dict(limits or {})
        self._semaphores: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    def limit_for(self, key: str) -> int:
        return self.limits.get(key, self.default)

    def semaphore(self, key: str) -> threading.BoundedSemaphore:
        sem = self._semaphores.get(key)
        if sem is None:
            with self._lock:
                sem = self._semaphores.get(key)
                if sem is None:
                    sem = threading.BoundedSemaphore(self.limit_for(key))
                    self._semaphores[key] = sem
        return sem
