"""A minimal fake of the Stripe API on 127.0.0.1 for the live adapter's tests: refunds
(create with Idempotency-Key, list, filter) and payment intents."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


@dataclass
class FakeStripe:
    intents: dict[str, dict[str, Any]] = field(default_factory=dict)
    refunds: list[dict[str, Any]] = field(default_factory=list)
    by_key: dict[str, dict[str, Any]] = field(default_factory=dict)
    keys_seen: list[str] = field(default_factory=list)
    drop_next_answer: bool = False
    url: str = ""

    def add_intent(self, pid: str, amount: int, currency: str = "usd") -> None:
        self.intents[pid] = {
            "id": pid,
            "object": "payment_intent",
            "status": "succeeded",
            "currency": currency,
            "amount_received": amount,
        }

    def create_refund(self, params: dict[str, str], key: str) -> tuple[int, dict[str, Any]]:
        self.keys_seen.append(key)
        if key and key in self.by_key:
            return 200, self.by_key[key]
        intent = self.intents.get(params.get("payment_intent", ""))
        if intent is None:
            return 404, _error("No such payment_intent")
        amount = int(params["amount"])
        refunded = sum(r["amount"] for r in self.refunds if r["payment_intent"] == intent["id"])
        if refunded + amount > intent["amount_received"]:
            return 400, _error("Refund amount is greater than unrefunded amount on charge.")
        metadata = {
            k[len("metadata[") : -1]: v for k, v in params.items() if k.startswith("metadata[")
        }
        refund = {
            "id": f"re_{len(self.refunds) + 1}",
            "object": "refund",
            "amount": amount,
            "currency": intent["currency"],
            "status": "succeeded",
            "payment_intent": intent["id"],
            "metadata": metadata,
            "created": int(time.time()),
        }
        self.refunds.append(refund)
        if key:
            self.by_key[key] = refund
        return 200, refund

    def list_refunds(self, query: dict[str, str]) -> dict[str, Any]:
        rows = self.refunds
        if "payment_intent" in query:
            rows = [r for r in rows if r["payment_intent"] == query["payment_intent"]]
        if "created[gte]" in query:
            rows = [r for r in rows if r["created"] >= int(query["created[gte]"])]
        if "created[lt]" in query:
            rows = [r for r in rows if r["created"] < int(query["created[lt]"])]
        return {"object": "list", "data": rows, "has_more": False, "url": "/v1/refunds"}


def _error(message: str) -> dict[str, Any]:
    return {"error": {"type": "invalid_request_error", "message": message}}


def _handler(fake: FakeStripe) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            parsed = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
            if parsed.path == "/v1/refunds":
                self._send(200, fake.list_refunds(query))
            elif parsed.path.startswith("/v1/payment_intents/"):
                pid = parsed.path.rsplit("/", 1)[1]
                intent = fake.intents.get(pid)
                self._send(200, intent) if intent else self._send(404, _error("No such intent"))
            else:
                self._send(404, _error("Unknown path"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            params = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if urlparse(self.path).path != "/v1/refunds":
                self._send(404, _error("Unknown path"))
                return
            status, body = fake.create_refund(params, self.headers.get("Idempotency-Key", ""))
            if fake.drop_next_answer:
                # The refund is made, but the connection dies before the answer arrives.
                fake.drop_next_answer = False
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self._send(status, body)

    return Handler


@contextmanager
def running() -> Iterator[FakeStripe]:
    fake = FakeStripe()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    # serve_forever polls for shutdown every poll_interval (0.5 s by default), and shutdown()
    # waits for the next poll: a short interval saves most of half a second per test.
    thread = threading.Thread(
        target=server.serve_forever, daemon=True, kwargs={"poll_interval": 0.02}
    )
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
