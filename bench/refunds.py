"""Refund API figures, printed as JSON.

Through the real stack, served the way docs/deployment.md deploys it: gunicorn with W sync
workers (default 2 x CPUs + 1, gunicorn's own advice) on 127.0.0.1, each worker process with
its persistent database connection, and every middleware, DRF, bearer-token
authentication, the Idempotency-Key layer and the refund_request service (row lock,
rehearsal, audit event). Sync workers close each connection after its response (no
keep-alive: in production a proxy in front keeps the clients' connections), so the client
opens one TCP connection per request, as that proxy would. Load comes from P client processes
of T threads (plain http.client, so the client's own CPU stays small; it runs on the same
machine and its CPU counts), all starting at the same instant.

`--server inprocess` measures the former setup instead: Django's test Client calling the WSGI
handler inside the client processes (P processes x T threads sharing each process's GIL);
no HTTP, but the test Client's own bookkeeping and GIL contention between the client threads.

1. per_request (load-independent): SQL statements per refund request (CaptureQueriesContext)
   and CPU ms per request of one process sending requests one after another in-process.
2. throughput: N refund requests (unique keys, spread over 200 payments) -> requests/second,
   p50/p95/p99 latency (ms), and CPU ms per request of the server's workers and of the client.
3. duplicates: 10,000 requests replayed concurrently with repeated keys (1,000 keys x 10,
   shuffled; a 409 "still in flight" is retried, as a client would) -> refunds created,
   keys that ended up with more than one refund, and `duplicate_refunds` (must be 0).

Engines: SQLite (a temporary file, WAL + IMMEDIATE as configured) always; PostgreSQL
(database bo_bench_refunds on postgres://postgres@127.0.0.1:5432, dropped and recreated)
when it is reachable, or skip it with --no-postgres.

    .venv/bin/python bench/refunds.py [--requests 3000] [--processes 2] [--concurrency 4]
        [--server gunicorn|inprocess] [--workers 5] [--duplicate-keys 1000] [--replays 10]
        [--no-postgres] [--only sqlite|postgresql]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PG_BENCH_URL = "postgres://postgres@127.0.0.1:5432/bo_bench_refunds"
PAYMENTS = 200


def _postgres_reachable() -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", 5432)) == 0


def _recreate_pg_database() -> None:
    import psycopg

    with psycopg.connect(
        PG_ADMIN_URL.replace("postgres://", "postgresql://"), autocommit=True
    ) as c:
        c.execute("DROP DATABASE IF EXISTS bo_bench_refunds WITH (FORCE)")
        c.execute("CREATE DATABASE bo_bench_refunds")


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))
    return ordered[index]


# -- roles run in child processes (Django settings are per process) ------------------------


def _setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _role_setup() -> dict[str, Any]:
    _setup_django()
    from django.core.management import call_command

    from identity import tokens
    from identity.models import ApiToken, Operator, OperatorKind
    from payments_sandbox.domain import Money
    from payments_sandbox.services import payment_capture

    call_command("migrate", verbosity=0)
    principal = Operator.objects.create(
        username="bench-runtime", kind=OperatorKind.SERVICE, display_name="bench"
    )
    raw, prefix, token_hash = tokens.generate()
    ApiToken.objects.create(
        operator=principal,
        name="bench",
        prefix=prefix,
        token_hash=token_hash,
        scopes=["refunds:request"],
    )
    payment_ids = [
        payment_capture(actor=None, amount=Money.parse("100000.00", "USD")).pk
        for _ in range(PAYMENTS)
    ]
    return {"token": raw, "payment_ids": payment_ids}


def _role_count() -> dict[str, Any]:
    _setup_django()
    from django.db import connection

    from payments_sandbox.models import Refund

    return {"refunds": Refund.objects.count(), "engine": connection.vendor}


def _role_profile(spec: dict[str, Any]) -> dict[str, Any]:
    """Statements and CPU per refund request, one request at a time (load-independent)."""
    _setup_django()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    auth: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {spec['token']}"}
    ids = spec["payment_ids"]

    def send(i: int) -> None:
        body = json.dumps({"payment_id": ids[i % len(ids)], "amount": "1.00", "reason": "x"})
        response = client.post(
            "/api/v1/refunds/request",
            body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"profile-{i}",
            **auth,
        )
        assert response.status_code == 201, response.content

    for i in range(30):  # warm up: imports, URL resolver, caches, the connection
        send(i)
    statements = 0
    for i in range(30, 50):
        # One context per request: Django empties the query log when a request starts.
        with CaptureQueriesContext(connection) as queries:
            send(i)
        statements += len(queries.captured_queries)
    count = spec["requests"]
    began = time.process_time()
    for i in range(50, 50 + count):
        send(i)
    cpu = time.process_time() - began
    connection.close()
    return {
        "statements_per_request": statements / 20,
        "cpu_ms_per_request_in_process": round(cpu / count * 1000, 3),
        "requests": count,
    }


def _http_post(port: int, body: str, headers: dict[str, str]) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", "/api/v1/refunds/request", body, headers)
        response = conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None
    finally:
        conn.close()


def _role_load(spec: dict[str, Any]) -> dict[str, Any]:
    """Send spec["jobs"] from spec["concurrency"] threads, starting at spec["start_at"]."""
    port = spec.get("port")
    lock = threading.Lock()
    queue = [tuple(job) for job in reversed(spec["jobs"])]
    results: list[tuple[int, float, Any, str]] = []

    if port:
        base = {"Authorization": f"Bearer {spec['token']}", "Content-Type": "application/json"}

        def make_sender() -> Any:
            def send(body: str, key: str) -> tuple[int, Any]:
                return _http_post(port, body, {**base, "Idempotency-Key": key})

            return send

        def finish() -> None:
            pass

    else:
        _setup_django()
        from django.db import connection
        from django.test import Client

        auth: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {spec['token']}"}

        def make_sender() -> Any:
            client = Client()

            def send(body: str, key: str) -> tuple[int, Any]:
                response = client.post(
                    "/api/v1/refunds/request",
                    body,
                    content_type="application/json",
                    HTTP_IDEMPOTENCY_KEY=key,
                    **auth,
                )
                return response.status_code, response.json()

            return send

        def finish() -> None:
            connection.close()

        # Warm up this process (imports, URL resolver, first connection) before the clock.
        Client().get("/api/v1/refunds/request", **auth)
        connection.close()

    def loop() -> None:
        send = make_sender()
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    payment_id, key = queue.pop()
                body = json.dumps({"payment_id": payment_id, "amount": "1.00", "reason": "bench"})
                while True:
                    start = time.perf_counter()
                    status, data = send(body, key)
                    elapsed = (time.perf_counter() - start) * 1000
                    if status == 409 and spec["retry_in_flight"]:
                        time.sleep(0.002)  # a client retrying "still in flight" with the key
                        continue
                    break
                refund_id = data["id"] if status == 201 else None
                with lock:
                    results.append((status, elapsed, refund_id, key))
        finally:
            finish()

    while time.time() < spec["start_at"]:
        time.sleep(0.001)
    began = time.time()
    cpu_began = time.process_time()
    threads = [threading.Thread(target=loop) for _ in range(spec["concurrency"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "began": began,
        "ended": time.time(),
        "cpu_seconds": time.process_time() - cpu_began,
        "results": results,
    }


# -- the server -----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Gunicorn:
    """gunicorn backoffice.wsgi with `workers` sync workers, as deployed."""

    def __init__(self, env: dict[str, str], workers: int) -> None:
        executable = Path(sys.executable).with_name("gunicorn")
        if not executable.exists():
            raise SystemExit(
                "gunicorn is not installed: pip install '.[serve]' (or use --server inprocess)"
            )
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [
                str(executable),
                "backoffice.wsgi:application",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(workers),
                "--worker-class",
                "sync",
                # Import the app once in the master and fork the workers from it.
                "--preload",
                "--backlog",
                "2048",
                "--log-level",
                "warning",
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.workers = workers
        deadline = time.time() + 60
        while True:  # ready when every worker has booted and answers
            if self.proc.poll() is not None:
                assert self.proc.stderr is not None
                raise RuntimeError(self.proc.stderr.read()[-3000:])
            if len(self._worker_pids()) == workers:
                try:
                    _http_post(self.port, "{}", {"Content-Type": "application/json"})
                    break
                except (OSError, http.client.HTTPException):
                    pass
            if time.time() > deadline:
                raise RuntimeError("gunicorn did not start")
            time.sleep(0.2)

    def warm_up(self, token: str) -> None:
        """Several requests per worker, concurrently, so every worker has its database
        connection and lazy state (URL resolver, settings) before the clock starts."""
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

        def hit() -> None:
            for _ in range(10):
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                conn.request("GET", "/api/v1/refunds/request", headers=headers)
                conn.getresponse().read()
                conn.close()

        threads = [threading.Thread(target=hit) for _ in range(self.workers * 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _worker_pids(self) -> list[int]:
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        except OSError:
            return []
        return [int(pid) for pid in children.split()]

    def cpu_seconds(self) -> float:
        """User + system CPU of the workers so far (Linux /proc)."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in self._worker_pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# -- driver ---------------------------------------------------------------------------------


def _child(role: str, env: dict[str, str], payload: Any = None) -> Any:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--role", role],
        env=env,
        cwd=ROOT,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _load(
    env: dict[str, str],
    setup: dict[str, Any],
    jobs: list[Any],
    args: Any,
    retry: bool,
    port: int | None,
) -> Any:
    """Split jobs over args.processes processes that start sending at the same moment."""
    start_at = time.time() + 3 + args.processes
    shares = [jobs[i :: args.processes] for i in range(args.processes)]
    procs = []
    for share in shares:
        spec = {
            "token": setup["token"],
            "jobs": share,
            "concurrency": args.concurrency,
            "start_at": start_at,
            "retry_in_flight": retry,
            "port": port,
        }
        procs.append(
            subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--role", "load"],
                env=env,
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        assert procs[-1].stdin is not None
        procs[-1].stdin.write(json.dumps(spec))
        procs[-1].stdin.close()
    outs = []
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
        if proc.wait() != 0:
            raise RuntimeError(err[-3000:])
        outs.append(json.loads(out.strip().splitlines()[-1]))
    wall = max(o["ended"] for o in outs) - min(o["began"] for o in outs)
    results = [tuple(r) for o in outs for r in o["results"]]
    return wall, results, sum(o["cpu_seconds"] for o in outs)


def _statuses(results: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for code, *_ in results:
        counts[str(code)] = counts.get(str(code), 0) + 1
    return counts


def _run_engine(name: str, database_url: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"bench-refunds-{name}-") as var_dir:
        env = dict(os.environ)
        env.update(
            {
                "DATABASE_URL": database_url or f"sqlite:///{var_dir}/bench.sqlite3",
                "VAR_DIR": var_dir,
                "DJANGO_SETTINGS_MODULE": "backoffice.settings",
                "SECRET_KEY": "bench-only-secret-key",
                "DEBUG": "0",
                "ALLOWED_HOSTS": "testserver,127.0.0.1",
                "LOG_LEVEL": "WARNING",
                "PAYMENTS_MODE": "sandbox",
                "STRIPE_API_KEY": "",
                "CELERY_BROKER_URL": "",
                "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            }
        )
        setup = _child("setup", env)
        profile = _child("profile", env, {**setup, "requests": args.profile_requests})
        rng = random.Random(42)
        ids = setup["payment_ids"]
        server = _Gunicorn(env, args.workers) if args.server == "gunicorn" else None
        port = server.port if server else None
        if server:
            server.warm_up(setup["token"])
        try:
            jobs = [(rng.choice(ids), f"tp-{i}") for i in range(args.requests)]
            server_cpu = server.cpu_seconds() if server else 0.0
            wall, results, client_cpu = _load(env, setup, jobs, args, retry=False, port=port)
            server_cpu = (server.cpu_seconds() - server_cpu) if server else 0.0
            latencies = [ms for _, ms, _, _ in results]

            before = _child("count", env)["refunds"]
            keys = [(rng.choice(ids), f"dup-{k}") for k in range(args.duplicate_keys)]
            replay = [job for job in keys for _ in range(args.replays)]
            rng.shuffle(replay)
            dup_wall, dup_results, _ = _load(env, setup, replay, args, retry=True, port=port)
        finally:
            if server:
                server.stop()
        counted = _child("count", env)
        created = counted["refunds"] - before
        ids_per_key: dict[str, set[int]] = {}
        for code, _, refund_id, key in dup_results:
            if code == 201:
                ids_per_key.setdefault(key, set()).add(refund_id)
        served = (
            {
                "server": f"gunicorn backoffice.wsgi, {args.workers} sync workers, 127.0.0.1 TCP",
                "client": "http.client, one connection per request (sync workers close it)",
            }
            if server
            else {
                "server": "none: django.test.Client calls the WSGI handler in the client threads",
                "client": "django.test.Client",
            }
        )
        return {
            "engine": counted["engine"],
            **served,
            "client_processes": args.processes,
            "threads_per_process": args.concurrency,
            # Django's persistent connections (settings DB_CONN_MAX_AGE), both engines.
            "conn_max_age": env.get("DB_CONN_MAX_AGE", "60"),
            # A refund request hands nothing to Celery (only approval queues the execution,
            # on commit), so eager Celery in the bench does not touch the measured path.
            "celery_on_request_path": False,
            "per_request": profile,
            "throughput": {
                "requests": len(results),
                "statuses": _statuses(results),
                "requests_per_second": round(len(results) / wall, 1),
                "latency_ms": {
                    "p50": round(statistics.median(latencies), 2),
                    "p95": round(_percentile(latencies, 95), 2),
                    "p99": round(_percentile(latencies, 99), 2),
                },
                # CPU per request of the serving processes (gunicorn workers; with
                # --server inprocess the server runs inside the client) and of the client.
                "server_cpu_ms_per_request": round(server_cpu / len(results) * 1000, 3)
                if server
                else None,
                "client_cpu_ms_per_request": round(client_cpu / len(results) * 1000, 3),
            },
            "duplicates": {
                "requests": len(dup_results),
                "distinct_keys": len(keys),
                "statuses_after_retrying_409": _statuses(dup_results),
                "refunds_created": created,
                "keys_answered_with_two_refund_ids": sum(
                    1 for found in ids_per_key.values() if len(found) > 1
                ),
                "duplicate_refunds": created - len(ids_per_key),
                "seconds": round(dup_wall, 2),
            },
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--concurrency", type=int, default=4, help="threads per process")
    parser.add_argument("--duplicate-keys", type=int, default=1000)
    parser.add_argument("--replays", type=int, default=10)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--profile-requests", type=int, default=300, help="for the per-request CPU figure"
    )
    parser.add_argument(
        "--only", choices=["sqlite", "postgresql"], help="measure one engine instead of both"
    )
    parser.add_argument("--server", choices=["gunicorn", "inprocess"], default="gunicorn")
    parser.add_argument(
        "--workers", type=int, default=2 * (os.cpu_count() or 2) + 1, help="gunicorn workers"
    )
    parser.add_argument(
        "--role", choices=["setup", "load", "count", "profile"], help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.role == "setup":
        print(json.dumps(_role_setup()))
        return
    if args.role == "count":
        print(json.dumps(_role_count()))
        return
    if args.role == "load":
        print(json.dumps(_role_load(json.loads(sys.stdin.read()))))
        return
    if args.role == "profile":
        print(json.dumps(_role_profile(json.loads(sys.stdin.read()))))
        return
    machine = {"cpus": os.cpu_count(), "load_average_at_start": os.getloadavg()}
    results: dict[str, Any] = {"machine": machine}
    if args.only != "postgresql":
        results["sqlite"] = _run_engine("sqlite", "", args)
    if args.only == "sqlite":
        pass
    elif not args.no_postgres and _postgres_reachable():
        _recreate_pg_database()
        results["postgresql"] = _run_engine("postgresql", PG_BENCH_URL, args)
    else:
        results["postgresql"] = {"skipped": "PostgreSQL not reachable on 127.0.0.1:5432"}
    results["machine"]["load_average_at_end"] = os.getloadavg()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
