"""Load: operators work the inbox while the AI agent escalates and requests refunds, through
gunicorn on loopback, on SQLite or PostgreSQL. Prints throughput, p50/p95/p99 and errors per
kind of request as a table (and --json for a JSON document).

    .venv/bin/python bench/load.py                            # SQLite, 30 s
    .venv/bin/python bench/load.py --postgres --duration 300  # PostgreSQL, 5 minutes
    .venv/bin/python bench/load.py --operators 6 --agents 3 --workers 4

Needs the `serve` extra (gunicorn): `pip install -c constraints.txt -e ".[serve]"`.

What runs: a fresh database (a temporary SQLite file, or the PostgreSQL database --postgres-db,
dropped and created), migrated and seeded with the demo data; gunicorn with --workers sync
workers bound to 127.0.0.1 only; then for --duration seconds:
  - each of --operators operators (the demo agents and supervisor, logged in through the
    real login and OTP pages) loops: the inbox page, a ticket's page, the ticket through the
    API, an internal note on it through the API (a 409 for a stale version is counted as a
    conflict, not an error: two people worked the same ticket);
  - each of --agents AI agent clients (the agent runtime's API token) loops: an escalation
    (a new ticket), a refund request of 0.01 on a demo payment, the refund list.
Every write carries its own Idempotency-Key. Errors are 5xx answers, connection failures and
any 4xx other than a 409. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
PG_SERVER = "postgresql://postgres@127.0.0.1:5432"
SECRET = "bench-load-secret-key-not-for-production-0123456789"
DEMO_PASSWORD = "demo-backoffice-2fa"
OPERATORS = ["alice", "carol", "sam"]
TOKEN_SCRIPT = """
from identity import scopes
from identity.models import Operator
from identity.services import api_token_create
principal = Operator.objects.get(username="agent-runtime")
_, raw = api_token_create(actor=None, principal=principal, name="load", scopes=list(scopes.known()))
print("TOKEN", raw)
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def totp(username: str, at: float) -> str:
    """The demo operator's current TOTP code (identity.demo derives the key from the
    username and SECRET_KEY)."""
    key = hmac.new(SECRET.encode(), f"demo-totp:{username}".encode(), hashlib.sha256).digest()
    counter = struct.pack(">Q", int(at) // 30)
    digest = hmac.new(key[:20], counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    conflicts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    samples: dict[str, str] = field(default_factory=dict)

    def record(self, kind: str, seconds: float, status: int, detail: str = "") -> None:
        with self.lock:
            self.latencies[kind].append(seconds)
            if status == 409:
                self.conflicts[kind] += 1
            elif status >= 400 or status == 0:
                self.errors[kind] += 1
                self.samples.setdefault(kind, f"{status} {detail[:200]}")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))  # nearest rank
    return ordered[index]


class Client:
    def __init__(self, base: str, stats: Stats) -> None:
        self.base = base
        self.stats = stats
        self.http = requests.Session()

    def call(self, kind: str, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        headers = kwargs.pop("headers", {})
        if method != "GET":
            headers["Idempotency-Key"] = str(uuid.uuid4())
            csrf = self.http.cookies.get("csrftoken")
            if csrf:
                headers["X-CSRFToken"] = csrf
        started = time.perf_counter()
        try:
            response = self.http.request(
                method, self.base + path, headers=headers, timeout=30, **kwargs
            )
        except requests.RequestException as exc:
            self.stats.record(kind, time.perf_counter() - started, 0, repr(exc))
            return None
        self.stats.record(
            kind, time.perf_counter() - started, response.status_code, response.text[:200]
        )
        return response

    def login(self, username: str) -> None:
        page = self.http.get(self.base + "/login/", timeout=30)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, "no CSRF token on the login page"
        form = {"username": username, "password": DEMO_PASSWORD}
        self.http.post(
            self.base + "/login/", data={**form, "csrfmiddlewaretoken": token[1]}, timeout=30
        )
        page = self.http.get(self.base + "/login/verify/", timeout=30)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, f"{username}: no OTP page after the password"
        answer = self.http.post(
            self.base + "/login/verify/",
            data={"code": totp(username, time.time()), "csrfmiddlewaretoken": token[1]},
            timeout=30,
        )
        assert "/login/" not in answer.url, f"{username}: the OTP step failed"


def operator_loop(client: Client, until: float, rng: random.Random) -> None:
    while time.monotonic() < until:
        client.call("inbox page", "GET", "/tickets/")
        listing = client.call("tickets API list", "GET", "/api/v1/tickets?view=queues")
        if listing is None or listing.status_code != 200 or not listing.json()["results"]:
            continue
        ticket_id = rng.choice(listing.json()["results"])["id"]
        client.call("ticket page", "GET", f"/tickets/{ticket_id}/")
        detail = client.call("ticket API", "GET", f"/api/v1/tickets/{ticket_id}")
        if detail is None or detail.status_code != 200:
            continue
        version = detail.json()["version"]
        client.call(
            "note (API)",
            "POST",
            f"/api/v1/tickets/{ticket_id}/notes",
            json={"version": version, "body": "Checked the order history."},
        )


def agent_loop(client: Client, until: float, rng: random.Random, payments: list[int]) -> None:
    n = 0
    while time.monotonic() < until:
        n += 1
        client.call(
            "escalation (API)",
            "POST",
            "/api/v1/escalations",
            json={
                "customer": {"name": f"Load Customer {rng.randrange(10_000)}"},
                "category": "customer_request",
                "reason": "The customer asked for a person.",
                "summary": "Wants to talk to someone about a late parcel.",
                "transcript": [{"role": "customer", "content": "Where is my parcel?"}],
                "requested_action": "Call the customer back.",
            },
        )
        client.call(
            "refund request (API)",
            "POST",
            "/api/v1/refunds/request",
            json={"payment_id": rng.choice(payments), "amount": "0.01", "reason": "load"},
        )
        if n % 3 == 0:
            client.call("refund list (API)", "GET", "/api/v1/refunds")


def refundable(payment: dict[str, Any]) -> float:
    """What is left to refund on a demo payment in a two-decimal currency (a 0.01 refund is
    not an amount in JPY or KWD's minor units the same way); 0 for the others."""
    if payment["currency"] not in {"USD", "EUR", "GBP"}:
        return 0.0
    value = payment["refundable"]
    if isinstance(value, dict):
        value = value.get("amount", 0)
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prepare(args: argparse.Namespace, workdir: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "SECRET_KEY": SECRET,
        "DEBUG": "0",
        "SECURE_COOKIES": "0",  # plain HTTP on loopback
        "ALLOWED_HOSTS": "127.0.0.1",
        "VAR_DIR": str(workdir),
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("CELERY_BROKER_URL", None)
    if args.postgres:
        import psycopg

        with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{args.postgres_db}"')
            c.execute(f'CREATE DATABASE "{args.postgres_db}"')
        env["DATABASE_URL"] = f"{PG_SERVER}/{args.postgres_db}"
    else:
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'load.sqlite3'}"
    manage = [sys.executable, str(ROOT / "manage.py")]
    for command in (["migrate", "--no-input", "-v", "0"], ["seed_demo"]):
        subprocess.run(manage + command, env=env, cwd=ROOT, check=True, capture_output=True)
    out = subprocess.run(
        [*manage, "shell", "-c", TOKEN_SCRIPT],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    env["LOAD_TOKEN"] = out.split("TOKEN ", 1)[1].strip()
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load")
    parser.add_argument("--operators", type=int, default=3, help="operators working the inbox")
    parser.add_argument("--agents", type=int, default=2, help="AI agent API clients")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--postgres-db", default="bo_bench_load")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--json", action="store_true", help="print a JSON document instead")
    args = parser.parse_args()
    if shutil.which("gunicorn", path=str(Path(sys.executable).parent)) is None:
        sys.exit('gunicorn is not installed: pip install -c constraints.txt -e ".[serve]"')

    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    log(f"preparing the {'PostgreSQL' if args.postgres else 'SQLite'} database...")
    env = prepare(args, workdir)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "backoffice.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(args.workers),
            "--timeout",
            "60",
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                sys.exit("gunicorn did not start")
            time.sleep(0.2)
        stats = Stats()
        rng = random.Random(args.seed)
        operators = []
        for i in range(args.operators):
            client = Client(base, stats)
            client.login(OPERATORS[i % len(OPERATORS)])
            operators.append(client)
        agents = []
        for _ in range(args.agents):
            client = Client(base, stats)
            client.http.headers["Authorization"] = f"Bearer {env['LOAD_TOKEN']}"
            agents.append(client)
        listed = agents[0].http.get(base + "/api/v1/payments").json()["results"]
        payments = [p["id"] for p in listed if refundable(p) >= 5]
        assert payments, "no demo payment with 5.00 left to refund"
        stats = Stats()  # the set-up requests are not part of the figures
        for client in (*operators, *agents):
            client.stats = stats
        log(f"load for {args.duration:.0f} s: {args.operators} operators, {args.agents} agents")
        started = time.monotonic()
        until = started + args.duration
        threads = [
            threading.Thread(target=operator_loop, args=(c, until, random.Random(rng.random())))
            for c in operators
        ] + [
            threading.Thread(
                target=agent_loop, args=(c, until, random.Random(rng.random()), payments)
            )
            for c in agents
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)

    rows = []
    for kind in sorted(stats.latencies):
        values = stats.latencies[kind]
        rows.append(
            {
                "request": kind,
                "count": len(values),
                "per_s": len(values) / elapsed,
                "p50_ms": percentile(values, 50) * 1000,
                "p95_ms": percentile(values, 95) * 1000,
                "p99_ms": percentile(values, 99) * 1000,
                "errors": stats.errors.get(kind, 0),
                "conflicts": stats.conflicts.get(kind, 0),
            }
        )
    everything = [v for values in stats.latencies.values() for v in values]
    total = {
        "request": "all",
        "count": len(everything),
        "per_s": len(everything) / elapsed,
        "p50_ms": percentile(everything, 50) * 1000,
        "p95_ms": percentile(everything, 95) * 1000,
        "p99_ms": percentile(everything, 99) * 1000,
        "errors": sum(stats.errors.values()),
        "conflicts": sum(stats.conflicts.values()),
    }
    database = "postgresql" if args.postgres else "sqlite"
    if args.json:
        print(json.dumps({"database": database, "seconds": elapsed, "rows": [*rows, total]}))
        return
    print(
        f"database {database}, gunicorn {args.workers} workers, {args.operators} operators, "
        f"{args.agents} agents, {elapsed:.0f} s"
    )
    header = f"{'request':<22} {'count':>7} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} "
    print(header + f"{'p99 ms':>8} {'errors':>7} {'409s':>6}")
    for row in [*rows, total]:
        print(
            f"{row['request']:<22} {row['count']:>7} {row['per_s']:>8.1f} {row['p50_ms']:>8.0f} "
            f"{row['p95_ms']:>8.0f} {row['p99_ms']:>8.0f} {row['errors']:>7} {row['conflicts']:>6}"
        )
    for kind, sample in sorted(stats.samples.items()):
        print(f"  first error of {kind}: {sample}")


if __name__ == "__main__":
    main()
