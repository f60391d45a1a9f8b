"""Fault injection: PostgreSQL restarted under load, through gunicorn, as in production.

A private PostgreSQL cluster of our own (initdb into a temporary directory, its own port and
socket directory: the shared server is never touched) serves a gunicorn with two sync
workers and persistent connections (DB_CONN_MAX_AGE=60, health checks on, as deployed).
Agent clients escalate and request refunds, each write with its own Idempotency-Key, retried
with the same key while the answer says "retry" (503 + Retry-After, or 409 while a duplicate
is in flight). Mid-load the cluster is restarted with `pg_ctl restart -m fast`, then with
`-m immediate` (a crash: no shutdown checkpoint), then once more while idle. The test proves
what docs/operations.md ("Losing PostgreSQL for a moment") promises:

- clients get clean answers: 201, or 503 with Retry-After in the JSON error shape, or 409
  idempotency_in_flight; never a 500, a traceback or a request hanging past REQUEST_TIMEOUT;
- each operation's retries end in exactly one ticket or refund, and every operation a client
  saw succeed is still there after both restarts (nothing committed is lost);
- the app recovers without a restart: the same gunicorn workers serve on, and after the idle
  restart every worker's first request succeeds (the kept connection is health-checked).

It runs in the PostgreSQL leg of .ci/run (it needs no test database of its own, but running it
once is enough, and a machine that runs PostgreSQL has its binaries); it skips where the
PostgreSQL server binaries or gunicorn are missing. It takes about a minute.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
import requests
from django.db import connection

from backoffice.models import IdempotencyRecord, IdempotencyState
from payments_sandbox.models import Refund
from tickets.models import Escalation

ROOT = Path(__file__).resolve().parents[2]
SECRET = "fault-pg-restart-secret-key-not-for-production-0123456789"
REQUEST_TIMEOUT = 20.0  # seconds: a request answered later than this counts as a hang
OPERATION_BOUND = 90.0  # seconds one operation may take, retries included
WORKERS = 2
CLIENTS = 3
TOKEN_SCRIPT = """
from identity import scopes
from identity.models import Operator
from identity.services import api_token_create
principal = Operator.objects.get(username="agent-runtime")
_, raw = api_token_create(actor=None, principal=principal, name="fault", scopes=list(scopes.known()))
print("TOKEN", raw)
"""

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="runs in the PostgreSQL leg (it starts a private cluster of its own)",
    ),
]


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        pytest.skip("the PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A throwaway PostgreSQL cluster, run as the postgres user when we are root (initdb
    refuses root)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="fault-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "postgres", "postgres")

    def run(self, *args: str, timeout: float = 120) -> None:
        subprocess.run(
            [*self.as_user, *args], check=True, capture_output=True, timeout=timeout, cwd="/"
        )

    def init_and_start(self) -> None:
        self.run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
        )
        self.pg_ctl("start")

    def pg_ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        self.run(
            str(self.bindir / "pg_ctl"),
            action,
            "-D",
            str(self.data),
            "-w",
            "-t",
            "60",
            "-l",
            str(self.root / "server.log"),
            "-o",
            options,
            *extra,
        )

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError):
            self.pg_ctl("stop", "-m", "immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Tally:
    """What the clients saw, shared by their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    statuses: Counter[int] = field(default_factory=Counter)
    done: dict[str, str] = field(default_factory=dict)  # operation id -> "escalation"/"refund"
    problems: list[str] = field(default_factory=list)

    def saw(self, status: int) -> None:
        with self.lock:
            self.statuses[status] += 1

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)


def _operation(kind: str, op: str, payment_id: int) -> tuple[str, dict[str, Any]]:
    if kind == "escalation":
        return "/api/v1/escalations", {
            "customer": {"name": "Restart Customer"},
            "category": "customer_request",
            "reason": "The customer asked for a person.",
            "summary": "Wants to talk to someone about a late parcel.",
            "transcript": [{"role": "customer", "content": "Where is my parcel?"}],
            "requested_action": "Call the customer back.",
            "conversation_id": op,
        }
    return "/api/v1/refunds/request", {"payment_id": payment_id, "amount": "0.01", "reason": op}


def _perform(
    http: requests.Session, base: str, kind: str, op: str, payment_id: int, tally: Tally
) -> bool:
    """One write, retried with the same key until it has an answer; False on a problem."""
    path, body = _operation(kind, op, payment_id)
    key = str(uuid.uuid4())
    bound = time.monotonic() + OPERATION_BOUND
    while time.monotonic() < bound:
        started = time.monotonic()
        try:
            response = http.post(
                base + path, json=body, headers={"Idempotency-Key": key}, timeout=REQUEST_TIMEOUT
            )
        except requests.RequestException as exc:
            tally.problem(f"{op}: no answer after {time.monotonic() - started:.1f} s: {exc!r}")
            return False
        tally.saw(response.status_code)
        text = response.text
        if "Traceback" in text or not response.headers.get("Content-Type", "").startswith(
            "application/json"
        ):
            tally.problem(f"{op}: {response.status_code} not in the JSON error shape: {text[:200]}")
            return False
        if response.status_code == 201:
            with tally.lock:
                tally.done[op] = kind
            return True
        code = response.json().get("error", {}).get("code")
        if response.status_code == 503 and code == "database_unavailable":
            if response.headers.get("Retry-After") is None:
                tally.problem(f"{op}: 503 without Retry-After")
                return False
            time.sleep(0.2)  # sooner than Retry-After says: the test is in a hurry
            continue
        if response.status_code == 409 and code == "idempotency_in_flight":
            time.sleep(0.5)
            continue
        tally.problem(f"{op}: unexpected {response.status_code}: {text[:300]}")
        return False
    tally.problem(f"{op}: no final answer within {OPERATION_BOUND} s")
    return False


def _client(
    base: str, token: str, payments: list[int], index: int, stop: threading.Event, tally: Tally
) -> None:
    http = requests.Session()
    http.headers["Authorization"] = f"Bearer {token}"
    n = 0
    while not stop.is_set():
        n += 1
        kind = "escalation" if n % 2 else "refund"
        op = f"fault-{index}-{n}"
        if not _perform(http, base, kind, op, payments[(index + n) % len(payments)], tally):
            return


def _refundable(payment: dict[str, Any]) -> float:
    """What is left to refund on a demo payment in a two-decimal currency, else 0."""
    if payment["currency"] not in {"USD", "EUR", "GBP"}:
        return 0.0
    value = payment["refundable"]
    return float(value.get("amount", 0) if isinstance(value, dict) else value)


def _workers(master: int) -> set[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True)
    return {int(pid) for pid in out.stdout.split()}


@pytest.fixture
def served() -> Iterator[tuple[Cluster, str, dict[str, str], subprocess.Popen[bytes]]]:
    bindir = _pg_bin()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    if not gunicorn.exists():
        pytest.skip("gunicorn is not installed (the test extra installs it)")
    cluster = Cluster(bindir)
    server: subprocess.Popen[bytes] | None = None
    try:
        cluster.init_and_start()
        with psycopg.connect(cluster.url("postgres"), autocommit=True) as c:
            c.execute("CREATE DATABASE backoffice")
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("CELERY_", "DJANGO_SETTINGS_MODULE", "PYTEST"))
        }
        env.update(
            SECRET_KEY=SECRET,
            DEBUG="0",
            SECURE_COOKIES="0",
            ALLOWED_HOSTS="127.0.0.1",
            VAR_DIR=str(cluster.root),
            DATABASE_URL=cluster.url("backoffice"),
            EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            DB_CONN_MAX_AGE="60",
        )
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
        env["FAULT_TOKEN"] = out.split("TOKEN ", 1)[1].strip()
        port = _free_port()
        env["FAULT_BASE"] = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [
                str(gunicorn),
                "backoffice.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(WORKERS),
                "--timeout",
                "60",
                "--log-level",
                "warning",
            ],
            env=env,
            cwd=ROOT,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(env["FAULT_BASE"] + "/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.2)
        yield cluster, env["FAULT_BASE"], env, server
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        cluster.stop()


def _wait_for(tally: Tally, successes: int, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while len(tally.done) < successes:
        assert not tally.problems, tally.problems
        assert time.monotonic() < deadline, f"only {len(tally.done)} operations in {limit} s"
        time.sleep(0.05)


def test_postgresql_restarted_under_load_loses_nothing_doubles_nothing_and_answers_cleanly(
    served: tuple[Cluster, str, dict[str, str], subprocess.Popen[bytes]],
) -> None:
    cluster, base, env, server = served
    token = env["FAULT_TOKEN"]
    auth = {"Authorization": f"Bearer {token}"}
    listed = requests.get(base + "/api/v1/payments", headers=auth, timeout=10).json()["results"]
    payments = [p["id"] for p in listed if _refundable(p) >= 5]
    assert payments, "the demo data has no payment with 5.00 left to refund"
    workers_before = _workers(server.pid)
    assert len(workers_before) == WORKERS

    tally = Tally()
    stop = threading.Event()
    clients = [
        threading.Thread(target=_client, args=(base, token, payments, i, stop, tally))
        for i in range(CLIENTS)
    ]
    for thread in clients:
        thread.start()
    try:
        _wait_for(tally, 12)
        before_fast = sum(tally.statuses.values())
        cluster.pg_ctl("restart", "-m", "fast")
        _wait_for(tally, len(tally.done) + 12)
        cluster.pg_ctl("restart", "-m", "immediate")
        _wait_for(tally, len(tally.done) + 12)
    finally:
        stop.set()
        for thread in clients:
            thread.join(timeout=OPERATION_BOUND + REQUEST_TIMEOUT)
    assert not any(thread.is_alive() for thread in clients), "a client hung"
    assert not tally.problems, tally.problems
    assert tally.statuses[500] == 0
    assert set(tally.statuses) <= {201, 409, 503}, tally.statuses
    # The restarts did land on requests: some were answered "retry" (not a run that missed).
    assert tally.statuses[503] > 0, (before_fast, tally.statuses)

    # The same workers served throughout: nothing had to be restarted to recover.
    assert _workers(server.pid) == workers_before

    # Idle restart: every worker's kept connection is dead now, and the health check replaces
    # it before the request uses it, so not one request fails.
    cluster.pg_ctl("restart", "-m", "fast")
    http = requests.Session()
    http.headers.update(auth)
    after = []
    for n in range(WORKERS * 4):
        op = f"fault-after-{n}"
        path, body = _operation("escalation", op, payments[0])
        response = http.post(
            base + path,
            json=body,
            headers={"Idempotency-Key": str(uuid.uuid4())},
            timeout=REQUEST_TIMEOUT,
        )
        after.append(response.status_code)
        tally.done[op] = "escalation"
    assert after == [201] * len(after), after

    # Exactly one ticket or refund per operation that succeeded, every one still there after
    # the crash restart, and none for an operation that never got a 201 (there is none: every
    # client's last operation either finished or was stopped before it was sent).
    with psycopg.connect(cluster.url("backoffice"), autocommit=True) as db:
        escalations = Counter(
            op
            for (op,) in db.execute(
                f"SELECT conversation_id FROM {Escalation._meta.db_table} "
                "WHERE conversation_id LIKE 'fault-%%'"
            )
        )
        refunds = Counter(
            op
            for (op,) in db.execute(
                f"SELECT reason FROM {Refund._meta.db_table} WHERE reason LIKE 'fault-%%'"
            )
        )
        in_flight = db.execute(
            f"SELECT count(*) FROM {IdempotencyRecord._meta.db_table} WHERE state = %s",
            [IdempotencyState.IN_FLIGHT.value],
        ).fetchone()
    wanted_escalations = {op for op, kind in tally.done.items() if kind == "escalation"}
    wanted_refunds = {op for op, kind in tally.done.items() if kind == "refund"}
    assert set(escalations) == wanted_escalations
    assert set(refunds) == wanted_refunds
    assert max(escalations.values()) == 1 and max(refunds.values()) == 1, "a write ran twice"
    assert in_flight == (0,)
    print(json.dumps({"operations": len(tally.done), "answers": dict(tally.statuses)}))
