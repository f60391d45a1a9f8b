"""Concurrency limits per provider: one semaphore per key, created on first use.

The key is the provider LiteLLM routes to ("openai", "anthropic", ...) or, for a model with
an explicit `api_base` (a vLLM server, a team's agent service), that endpoint: two
OpenAI-compatible services do not share one rate limit.

Threads take `semaphore(key)`; coroutines take `async_semaphore(key)`, one per event loop
(an asyncio semaphore belongs to the loop it first waits on), so the limit counts per loop:
a process running one loop — the way to keep hundreds of calls in flight — gets exactly the
configured limit.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Mapping


class ProviderLimits:
    def __init__(self, limits: Mapping[str, int] | None = None, *, default: int = 64) -> None:
        if default < 1 or any(v < 1 for v in (limits or {}).values()):
            raise ValueError("concurrency limits must be >= 1")
        self.default = default
        self.limits = dict(limits or {})
        self._semaphores: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()
        self._async: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]
        ] = weakref.WeakKeyDictionary()

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

    def async_semaphore(self, key: str) -> asyncio.Semaphore:
        """The running loop's semaphore for `key` (call from a coroutine)."""
        loop = asyncio.get_running_loop()
        per_loop = self._async.get(loop)
        if per_loop is None:
            with self._lock:
                per_loop = self._async.setdefault(loop, {})
        sem = per_loop.get(key)
        if sem is None:
            sem = per_loop.setdefault(key, asyncio.Semaphore(self.limit_for(key)))
        return sem
