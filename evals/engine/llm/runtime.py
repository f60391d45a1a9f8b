"""LiteLLM and the HTTP pool the model client sends through, imported and built once per
process (and again in a forked child), and the event loop that the client's event-loop mode
runs every call on."""

from __future__ import annotations

import os
import threading
from typing import Any

from evals.engine.llm import direct

_litellm_module: Any = None
_installed_pool: Any = None
_import_lock = threading.Lock()


def litellm_module() -> Any:
    """Import LiteLLM once, on first use, with the local price map (no network)."""
    global _litellm_module, _installed_pool
    if _litellm_module is None:
        with _import_lock:
            if _litellm_module is None:
                os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                import litellm

                litellm.suppress_debug_info = True  # no "Give Feedback" banner per error
                litellm.telemetry = False
                if litellm.client_session is None:
                    _installed_pool = _sync_http_client()
                    litellm.client_session = _installed_pool
                _litellm_module = litellm
    return _litellm_module


def reset_http_pool_after_fork() -> None:
    """In a forked child: a pool of its own instead of the parent's connections (two
    processes writing to one socket interleave their requests, and each can read the
    other's answer). Only the pool this module installed is replaced; a session the caller
    set is theirs to manage.

    LiteLLM also keeps the SDK clients it built (an `OpenAI` object around the pool of the
    moment) in `in_memory_llm_clients_cache`. After any call made before the fork, that
    cache still hands the child an SDK client wrapping the parent's pool and its open
    connections, so it is emptied too; the child's first call builds a client around the
    new pool."""
    global _installed_pool
    direct.forget_async_clients()
    if _litellm_module is None:
        return
    pool = _installed_pool
    if pool is not None and _litellm_module.client_session is pool:
        _installed_pool = _sync_http_client()
        _litellm_module.client_session = _installed_pool
    _litellm_module.in_memory_llm_clients_cache.flush_cache()


def _sync_http_client() -> Any:
    """The httpx client LiteLLM's OpenAI-compatible path uses for synchronous calls.

    Left to itself LiteLLM builds a bare `httpx.Client()`: at most 100 connections and 20
    kept alive. Past 20 concurrent calls every answer then closes its connection and the
    next call opens a new one (a TCP handshake, and a new thread on a threaded server);
    past 100 the calls queue inside httpx, behind our own per-provider limit. The pool here
    has no connection cap (`ProviderLimits` is the cap) and keeps every connection alive.
    Set `litellm.client_session` before the first call to use your own (proxies, TLS)."""
    import httpx

    return httpx.Client(
        limits=httpx.Limits(
            max_connections=None, max_keepalive_connections=None, keepalive_expiry=30.0
        ),
        follow_redirects=True,
    )


class LoopThread:
    """One asyncio event loop running forever on a daemon thread of this process."""

    def __init__(self) -> None:
        import asyncio

        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="model-client-loop", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Cancel what still runs on the loop (LiteLLM's logging worker, a call in flight),
        stop the loop and let its thread end."""
        import asyncio

        if self.pid != os.getpid() or not self._thread.is_alive():
            return

        async def shutdown() -> None:
            await direct.close_loop_session()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.loop.stop()

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()

    def run(self, coroutine: Any) -> Any:
        """Run `coroutine` on the loop; block this thread until it is done (its result or
        its exception)."""
        import asyncio

        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()
