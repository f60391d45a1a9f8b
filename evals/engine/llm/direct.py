"""The direct path: an unpriced OpenAI-compatible model called without `litellm.completion`.

A self-hosted agent or customer (`openai/<name>` with an `api_base`: vLLM, a team's agent
service, the benchmarks' stub) has no price, so LiteLLM's work on each call is of no use to
us: its parameter mapping for a model it does not know, its logging object and logging
thread, its cost calculation (against a price we set to 1e-15), its response objects. A
profile of `litellm.completion` on the engine's requests put that work, and the OpenAI SDK
under it, at about three quarters of the call's CPU; the HTTP exchange itself is the rest.

So for such a model the client sends the chat-completions request itself, through the same
httpx pool LiteLLM would use (`litellm.client_session`, the one `client.py` installs) and
reads the JSON answer into its own records. What stays LiteLLM's:

- routing and the price table decide which models take this path (`direct_route`); a model
  with a price, price overrides, a parameter outside `DIRECT_PARAMS`, no api_base or no key
  goes through `litellm.completion` as before, and so does every call while a LiteLLM
  callback (logging, tracing) is set;
- errors: an HTTP error status, a timeout or a connection failure is turned into the
  exception LiteLLM would raise for it (the OpenAI SDK's exception, LiteLLM's `OpenAIError`
  and `exception_type`, the very chain `litellm.completion` runs), so `classify`, the retries
  and the records see the same classes (tests/evals_llm/test_direct.py compares them);
- the answer's reading: reasoning split out of the content as LiteLLM does, a "stop" with
  tool calls read as "tool_calls", OpenAI's hallucinated `multi_tool_use.parallel` unfolded.

Not mirrored, because no model on this path meets it: LiteLLM's answer to GPT-5's 400 for an
output budget too small (those models are priced, so they never come here), and its token
count when a server sends no `usage` (the record then says 0 tokens).

EVALS_LLM_DIRECT=0 (or `ModelClient(direct=False)`) sends every call through LiteLLM.
"""

from __future__ import annotations

import contextlib
import json
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Request parameters the direct path sends as they are, as LiteLLM sends them to an
# OpenAI-compatible server with a name it does not know. Anything else (response_format,
# mock_response, provider-specific keys, ...) keeps the LiteLLM path and its mapping.
DIRECT_PARAMS = frozenset(
    {
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "tool_choice",
        "parallel_tool_calls",
        "user",
        "extra_headers",
    }
)


@dataclass(frozen=True, slots=True)
class DirectRoute:
    """Where and how one model's calls are sent; built once per spec."""

    url: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]  # model and parameters; messages and tools are added per call
    timeout_s: float
    model: str  # the name without its provider prefix, as LiteLLM sends it


def direct_route(
    *,
    model: str,
    provider: str,
    api_base: str | None,
    api_key: str | None,
    params: Mapping[str, Any],
    priced: bool,
    timeout_s: float,
) -> DirectRoute | None:
    """The route for an unpriced `openai` model with its own api_base and key, or None."""
    if provider != "openai" or not api_base or not api_key or priced:
        return None
    if not set(params) <= DIRECT_PARAMS:
        return None
    name = model.split("/", 1)[1] if model.startswith("openai/") else model
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
    extra = params.get("extra_headers")
    if extra:
        headers.update({str(k): str(v) for k, v in dict(extra).items()})
    body = {"model": name, **{k: v for k, v in params.items() if k != "extra_headers"}}
    return DirectRoute(
        url=api_base.rstrip("/") + "/chat/completions",
        headers=headers,
        body=body,
        timeout_s=timeout_s,
        model=name,
    )


def litellm_callbacks(litellm: Any) -> bool:
    """Callbacks someone set on LiteLLM (logging, tracing): they only run inside
    `litellm.completion`, so while any is set every call goes there."""
    return any(
        getattr(litellm, name, None)
        for name in ("callbacks", "success_callback", "failure_callback", "input_callback")
    )


def request_bytes(
    route: DirectRoute,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None,
) -> bytes:
    body = dict(route.body)
    body["messages"] = messages
    if tools:
        body["tools"] = tools
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True, slots=True)
class DirectAnswer:
    """What the client's records need of an answer."""

    content: str
    tool_calls: tuple[tuple[str, str, str], ...]  # (id, name, raw JSON arguments)
    finish_reason: str
    model: str
    tokens_in: int
    tokens_out: int


def send(litellm: Any, route: DirectRoute, payload: bytes) -> DirectAnswer:
    """One attempt through LiteLLM's synchronous httpx pool; LiteLLM's exception on failure."""
    import httpx

    client = litellm.client_session
    try:
        response = client.post(
            route.url, content=payload, headers=route.headers, timeout=route.timeout_s
        )
    except httpx.HTTPError as exc:
        raise _transport_error(litellm, route, exc) from None
    return _answer(litellm, route, response)


async def asend(litellm: Any, route: DirectRoute, payload: bytes) -> DirectAnswer:
    """`send` on the running event loop, through an aiohttp session of that loop (the
    transport LiteLLM's own async path uses). httpx's AsyncClient was tried first: at 128
    calls in flight on one loop it cost ~19 ms of CPU a call against ~1 ms sequentially
    (bench/cli_rate.py, 256 trials in flight over 2 processes)."""

    import aiohttp
    import httpx

    session = _loop_session()
    try:
        async with session.post(
            route.url,
            data=payload,
            headers=route.headers,
            timeout=aiohttp.ClientTimeout(total=route.timeout_s),
        ) as response:
            content = await response.read()
            status = response.status
            headers = response.headers
    except TimeoutError as exc:
        raise _transport_error(litellm, route, httpx.ReadTimeout(str(exc))) from None
    except aiohttp.ClientError as exc:
        raise _transport_error(litellm, route, httpx.ConnectError(str(exc))) from None
    return _answer(litellm, route, _Response(status, content, headers, route.url))


class _Response:
    """An aiohttp answer as `_answer` reads it; an httpx.Response only for an error."""

    def __init__(self, status: int, content: bytes, headers: Any, url: str) -> None:
        self.status_code = status
        self.content = content
        self._headers = headers
        self._url = url

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def as_httpx(self) -> Any:
        import httpx

        return httpx.Response(
            self.status_code,
            headers=list(self._headers.items()),
            content=self.content,
            request=httpx.Request("POST", self._url),
        )


# One aiohttp session per event loop (a connection belongs to the loop that opened it);
# dropped with its loop.
_async_sessions: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_async_lock = threading.Lock()


def _loop_session() -> Any:
    import asyncio

    import aiohttp

    loop = asyncio.get_running_loop()
    session = _async_sessions.get(loop)
    if session is None:
        with _async_lock:
            session = _async_sessions.get(loop)
            if session is None:
                # No connection cap (the client's limits are the cap), kept alive 30 s as
                # the sync pool's (client.py).
                session = aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=30.0),
                    skip_auto_headers=("User-Agent",),
                )
                _async_sessions[loop] = session
                # A loop that ends (or a process that exits) without `close_loop_session`
                # takes its connections with it: closed here, so aiohttp does not report an
                # unclosed session when it is collected.
                weakref.finalize(loop, _abandon, session)
    return session


def _abandon(session: Any) -> None:
    # The connector's synchronous half of `close()` (the public one is a coroutine, and the
    # loop may be closed): it marks the connector closed and drops its transports; a closed
    # loop refuses to schedule the transports' closing, which changes nothing here.
    with contextlib.suppress(Exception):
        session.connector._close()


async def close_loop_session() -> None:
    """Close the running loop's session, if it has one (before its loop stops)."""
    import asyncio

    session = _async_sessions.pop(asyncio.get_running_loop(), None)
    if session is not None:
        await session.close()


def forget_async_clients() -> None:
    """After fork: the parent's loops and their connections are not this process's."""
    _async_sessions.clear()


def _answer(litellm: Any, route: DirectRoute, response: Any) -> DirectAnswer:
    if response.status_code >= 400:
        raise _status_error(litellm, route, response)
    try:
        data = json.loads(response.content)
        choice = data["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise _litellm_error(
            litellm,
            route,
            _openai_error(
                litellm,
                500,
                f"Empty or invalid response from LLM endpoint. Received: {response.text[:500]!r}.",
            ),
        ) from None
    calls = []
    for i, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        calls.append((call.get("id") or f"call_{i}", function.get("name") or "", arguments or ""))
    if any(name == "multi_tool_use.parallel" for _, name, _ in calls):
        calls = _unfolded_parallel_calls(litellm, message["tool_calls"])
    content = message.get("content")
    if isinstance(content, str) and "reasoning_content" not in message:
        # A reasoning model's <think>...</think> is not the answer (LiteLLM's reading).
        from litellm.litellm_core_utils.prompt_templates.reasoning_utils import (
            extract_reasoning_content,
        )

        _, content = extract_reasoning_content(message)
    finish = choice.get("finish_reason") or choice.get("finish_details") or "stop"
    if finish == "stop" and calls:
        finish = "tool_calls"
    usage = data.get("usage") or {}
    return DirectAnswer(
        content=content if isinstance(content, str) else "",
        tool_calls=tuple(calls),
        finish_reason=str(finish),
        model=str(data.get("model") or route.model),
        tokens_in=int(usage.get("prompt_tokens") or 0),
        tokens_out=int(usage.get("completion_tokens") or 0),
    )


def _unfolded_parallel_calls(litellm: Any, raw: list[dict[str, Any]]) -> list[Any]:
    """OpenAI's hallucinated `multi_tool_use.parallel`, unfolded as LiteLLM does."""
    from litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response import (
        chat_completion_tool_call_from_dict,
        handle_invalid_parallel_tool_calls,
    )

    objects = [chat_completion_tool_call_from_dict(c) for c in raw]
    fixed = handle_invalid_parallel_tool_calls(objects) or objects
    out = []
    for i, call in enumerate(fixed):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None) or ""
        out.append((call.id or f"call_{i}", name, getattr(function, "arguments", None) or ""))
    return out


# -- errors: the chain `litellm.completion` runs for the `openai` provider -----------------
_sdk_clients: dict[str, Any] = {}


def _sdk_client(litellm: Any, route: DirectRoute) -> Any:
    """An OpenAI SDK client, only to build the SDK's exception for an error response."""
    client = _sdk_clients.get(route.url)
    if client is None:
        import openai

        client = openai.OpenAI(
            api_key="unused", base_url=route.url.rsplit("/chat/completions", 1)[0], max_retries=0
        )
        _sdk_clients[route.url] = client
    return client


def _status_error(litellm: Any, route: DirectRoute, response: Any) -> Exception:
    if isinstance(response, _Response):
        response = response.as_httpx()
    response.read()
    sdk_error = _sdk_client(litellm, route)._make_status_error_from_response(response)
    return _litellm_error(litellm, route, _from_sdk_error(litellm, sdk_error))


def _transport_error(litellm: Any, route: DirectRoute, exc: Exception) -> Exception:
    import httpx
    import openai

    try:
        request = exc.request  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx raises when the request was never set
        request = httpx.Request("POST", route.url)
    sdk_error: Exception
    if isinstance(exc, httpx.TimeoutException):
        sdk_error = openai.APITimeoutError(request=request)
    else:
        sdk_error = openai.APIConnectionError(request=request)
    sdk_error.__cause__ = exc
    return _litellm_error(litellm, route, _from_sdk_error(litellm, sdk_error))


def _from_sdk_error(litellm: Any, e: Exception) -> Exception:
    """LiteLLM's openai handler's `except Exception` (llms/openai/openai.py)."""
    from litellm.llms.openai.common_utils import OpenAIError, upstream_error_response

    headers = getattr(e, "headers", None)
    response = getattr(e, "response", None)
    if headers is None and response:
        headers = getattr(response, "headers", None)
    return OpenAIError(
        status_code=getattr(e, "status_code", 500),
        message=getattr(e, "text", str(e)),
        response=upstream_error_response(e),
        headers=headers,
        body=getattr(e, "body", None),
    )


def _openai_error(litellm: Any, status: int, message: str) -> Exception:
    from litellm.llms.openai.common_utils import OpenAIError

    return OpenAIError(status_code=status, message=message)


def _litellm_error(litellm: Any, route: DirectRoute, error: Exception) -> Exception:
    """`litellm.completion`'s own last step: map the provider error to LiteLLM's classes."""
    from litellm.litellm_core_utils.exception_mapping_utils import exception_type

    try:
        mapped = exception_type(
            model=route.model, original_exception=error, custom_llm_provider="openai"
        )
    except Exception as raised:  # exception_type raises the mapped exception itself
        return raised
    return mapped
