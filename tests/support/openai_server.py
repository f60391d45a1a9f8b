"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

No network: it binds 127.0.0.1 on an ephemeral port. Each request is answered from a script:
a FIFO queue of `Reply` objects keyed by the `X-Script-Key` header or, without that header, by
the request's model name (LiteLLM sends `openai/<name>` as `<name>`), then a `handler`
callable, then `default`. A `Reply` can be assistant text, tool calls (optionally with
malformed JSON arguments), an HTTP error (429 with Retry-After, 500, a 400 that LiteLLM maps to
context-window-exceeded), and any of them can be delayed (slow responses, or sleeping past the
client's timeout).

Threaded (`ThreadingHTTPServer`, HTTP/1.1 keep-alive, a deep listen backlog) so it sustains
hundreds of concurrent slow requests: a delayed reply parks its thread on an `Event`, which
`stop()` sets so shutdown never waits for a sleeping reply.

Run standalone for benchmarks: `python -m tests.support.openai_server --delay 0.5`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class ToolCallSpec:
    name: str
    arguments: Mapping[str, Any] | str  # a str is sent verbatim (use it for malformed JSON)
    id: str = ""


@dataclass(frozen=True)
class Reply:
    """One scripted answer. `status` != 200 makes it an error response."""

    content: str | None = None
    tool_calls: tuple[ToolCallSpec, ...] = ()
    status: int = 200
    error_message: str = ""
    error_code: str | None = None
    retry_after: float | None = None
    delay: float = 0.0
    prompt_tokens: int = 11
    completion_tokens: int = 7
    model: str | None = None  # the model name reported back; defaults to the requested one


def text(content: str, **kw: Any) -> Reply:
    return Reply(content=content, **kw)


def tool_call(
    name: str,
    arguments: Mapping[str, Any] | str,
    *,
    content: str | None = None,
    call_id: str = "",
    **kw: Any,
) -> Reply:
    return Reply(content=content, tool_calls=(ToolCallSpec(name, arguments, call_id),), **kw)


def tool_calls(*calls: ToolCallSpec, content: str | None = None, **kw: Any) -> Reply:
    return Reply(content=content, tool_calls=calls, **kw)


def rate_limited(retry_after: float | None = 0.05, **kw: Any) -> Reply:
    return Reply(
        status=429,
        error_message="Rate limit reached",
        error_code="rate_limit_exceeded",
        retry_after=retry_after,
        **kw,
    )


def server_error(status: int = 500, **kw: Any) -> Reply:
    return Reply(status=status, error_message="The server had an error", **kw)


def context_window_exceeded(**kw: Any) -> Reply:
    return Reply(
        status=400,
        error_message=(
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9000 tokens. Please reduce the length of the messages."
        ),
        error_code="context_length_exceeded",
        **kw,
    )


def bad_request(message: str = "Invalid value for 'tools'", **kw: Any) -> Reply:
    return Reply(status=400, error_message=message, error_code="invalid_request_error", **kw)


# Headers as the stdlib parses them (case-insensitive `.get`, repeated names kept).
Handler = Callable[[dict[str, Any], Message], Reply]


@dataclass
class _State:
    queues: dict[str, deque[Reply]] = field(default_factory=lambda: defaultdict(deque))
    handler: Handler | None = None
    default: Reply = field(default_factory=lambda: Reply(content="ok"))
    record: bool = True
    requests: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    ids: Iterator[int] = field(default_factory=itertools.count)


class OpenAIServer:
    """Start with `start()`; `url` is the api_base to give LiteLLM (`.../v1`)."""

    def __init__(self, *, default: Reply | None = None, record: bool = True) -> None:
        self.state = _State(record=record)
        if default is not None:
            self.state.default = default
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------------
    def script(self, key: str, *replies: Reply) -> None:
        """Queue replies for requests whose script key (header or model name) is `key`."""
        with self.state.lock:
            self.state.queues[key].extend(replies)

    def set_handler(self, handler: Handler | None) -> None:
        self.state.handler = handler

    def set_default(self, reply: Reply) -> None:
        self.state.default = reply

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.state.requests

    def requests_for(self, key: str) -> list[dict[str, Any]]:
        return [r for r in self.state.requests if r["_script_key"] == key]

    @property
    def max_in_flight(self) -> int:
        return self.state.max_in_flight

    def pending(self, key: str) -> int:
        return len(self.state.queues.get(key, ()))

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        assert isinstance(host, str), "an AF_INET server's host is text"
        return f"http://{host}:{port}/v1"

    def start(self, port: int = 0) -> OpenAIServer:
        state = self.state

        class _Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 2048  # 256+ clients connect at once; the default of 5 drops SYNs

        class _Handler(_RequestHandler):
            pass

        _Handler.state = state
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, daemon=True, kwargs={"poll_interval": 0.05}
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes; no 40 ms ACK stall
    state: _State

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": []})
        else:
            self._send(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:  # as a provider answers a body that is not JSON
            self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request"}})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found", "type": "not_found"}})
            return
        state = self.state
        key = self.headers.get("X-Script-Key") or str(body.get("model", ""))
        body["_script_key"] = key
        body["_client_port"] = self.client_address[1]  # one port per client connection
        with state.lock:
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
            if state.record:
                state.requests.append(body)
            queue = state.queues.get(key)
            reply = queue.popleft() if queue else None
            n = next(state.ids)
        try:
            if reply is None:
                reply = state.handler(body, self.headers) if state.handler else state.default
            if reply.delay and state.stopping.wait(reply.delay):
                return
            self._answer(reply, body, n)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test); nothing to answer
        finally:
            with state.lock:
                state.in_flight -= 1

    def _answer(self, reply: Reply, body: dict[str, Any], n: int) -> None:
        status, payload, headers = render(reply, body, n)
        self._send(status, payload, headers)

    def _send(self, status: int, payload: dict[str, Any], headers: Mapping[str, str] = {}) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def render(
    reply: Reply, body: Mapping[str, Any], n: int
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """The status, JSON payload and extra headers answering `body` with `reply`."""
    if reply.status != 200:
        headers = {}
        if reply.retry_after is not None:
            headers["Retry-After"] = f"{reply.retry_after:g}"
        error = {"message": reply.error_message, "type": "error", "code": reply.error_code}
        return reply.status, {"error": error}, headers
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{n}_{i}",
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.arguments
                    if isinstance(call.arguments, str)
                    else json.dumps(call.arguments),
                },
            }
            for i, call in enumerate(reply.tool_calls)
        ]
    finish = "tool_calls" if reply.tool_calls else "stop"
    usage = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
    payload = {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1700000000,
        "model": reply.model or body.get("model", ""),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }
    return 200, payload, {}


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests"}


def _http_bytes(status: int, payload: Mapping[str, Any], headers: Mapping[str, str] = {}) -> bytes:
    data = json.dumps(payload).encode()
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", "Content-Type: application/json"]
    head.append(f"Content-Length: {len(data)}")
    head.extend(f"{k}: {v}" for k, v in headers.items())
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


def serve_asyncio(
    *,
    default: Reply,
    handler: Handler | None = None,
    port: int = 0,
    ready: Callable[[str], None] = print,
) -> None:
    """A cheap benchmark server: one asyncio event loop, keep-alive, a listen backlog of
    4096, no per-request thread. Without a `handler`, every call gets `default` (after its
    delay) as bytes rendered once per model name. Runs until the process is killed."""
    import asyncio
    from email.parser import BytesHeaderParser

    rendered: dict[str, bytes] = {}
    ids = itertools.count()
    not_found = _http_bytes(404, {"error": {"message": "not found", "type": "not_found"}})

    async def answer(head: bytes, raw: bytes) -> bytes:
        path = head.split(b" ", 2)[1].decode()
        if not path.rstrip("/").endswith("/chat/completions"):
            if path.rstrip("/").endswith("/models"):
                return _http_bytes(200, {"object": "list", "data": []})
            return not_found
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return _http_bytes(
                400, {"error": {"message": "body is not JSON", "type": "invalid_request"}}
            )
        if handler is None:
            reply = default
        else:
            headers = BytesHeaderParser().parsebytes(head.split(b"\r\n", 1)[1])
            reply = handler(body, headers)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        model = str(body.get("model", ""))
        if handler is None:
            data = rendered.get(model)
            if data is None:
                data = rendered[model] = _http_bytes(*render(reply, body, 0))
            return data
        return _http_bytes(*render(reply, body, next(ids)))

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                close = False
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    name = name.strip().lower()
                    if name == b"content-length":
                        length = int(value)
                    elif name == b"connection" and value.strip().lower() == b"close":
                        close = True
                raw = await reader.readexactly(length) if length else b""
                writer.write(await answer(head, raw))
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(connection, "127.0.0.1", port, backlog=4096)
        host, bound = server.sockets[0].getsockname()[:2]
        ready(f"http://{host}:{bound}/v1")
        async with server:
            await server.serve_forever()

    asyncio.run(main())


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started local server; its `url` is the api_base for `openai/<script-key>` models."""
    server = OpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


def main() -> None:  # pragma: no cover - benchmark entry point
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--handler", default="", help="module:function answering each call")
    parser.add_argument(
        "--asyncio",
        action="store_true",
        help="serve from one asyncio loop (cheap, for benchmarks) instead of threads",
    )
    args = parser.parse_args()
    default = Reply(content="ok", delay=args.delay)
    handler: Handler | None = None
    if args.handler:
        import dataclasses
        import importlib

        module, _, attr = args.handler.partition(":")
        inner = getattr(importlib.import_module(module), attr)
        delay = args.delay

        def handler(body: dict[str, Any], headers: Message) -> Reply:
            # The scripted replies are answered after the same fixed delay.
            reply: Reply = inner(body, headers)
            return dataclasses.replace(reply, delay=delay) if delay else reply

    if args.asyncio:
        serve_asyncio(
            default=default, handler=handler, port=args.port, ready=lambda u: print(u, flush=True)
        )
        return
    server = OpenAIServer(default=default, record=False)
    server.set_handler(handler)
    server.start(args.port)
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
