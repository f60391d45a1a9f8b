"""Refund API figures, printed as JSON.

Through the real stack: Django's test Client drives the WSGI handler in-process (every
middleware, DRF, bearer-token authentication, the Idempotency-Key layer, the refund_request
service with its row lock, rehearsal and audit event). Load comes from P processes (like P
WSGI workers; default one per CPU) of T threads, each thread with its own database
connection, all starting at the same instant. No HTTP socket: the figures are the
application's, not a web server's.

1. throughput: N refund requests (unique keys, spread over 200 payments) -> requests/second
   and p50/p95/p99 latency (ms).
2. duplicates: 10,000 requests replayed concurrently with repeated keys (1,000 keys x 10,
   shuffled; a 409 "still in flight" is retried, as a client would) -> refunds created,
   keys that ended up with more than one refund, and `duplicate_refunds` (must be 0).

Engines: SQLite (a temporary file, WAL + IMMEDIATE as configured) always; PostgreSQL
(database bo_bench_refunds on postgres://postgres@127.0.0.1:5432, dropped and recreated)
when it is reachable, or skip it with --no-postgres.

    .venv/bin/python bench/refunds.py [--requests 3000] [--processes 2] [--concurrency 4]
        [--duplicate-keys 1000] [--replays 10] [--no-postgres]
"""

from __future__ import annotations

import argparse
import json
import os
import random
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


def _role_load(spec: dict[str, Any]) -> dict[str, Any]:
    """Send spec["jobs"] from spec["concurrency"] threads, starting at spec["start_at"]."""
    _setup_django()
    from django.db import connection
    from django.test import Client

    auth: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {spec['token']}"}
    lock = threading.Lock()
    queue = [tuple(job) for job in reversed(spec["jobs"])]
    results: list[tuple[int, float, Any, str]] = []

    def loop() -> None:
        client = Client()
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    payment_id, key = queue.pop()
                body = json.dumps({"payment_id": payment_id, "amount": "1.00", "reason": "bench"})
                while True:
                    start = time.perf_counter()
                    response = client.post(
                        "/api/v1/refunds/request",
                        body,
                        content_type="application/json",
                        HTTP_IDEMPOTENCY_KEY=key,
                        **auth,
                    )
                    elapsed = (time.perf_counter() - start) * 1000
                    if response.status_code == 409 and spec["retry_in_flight"]:
                        time.sleep(0.002)  # a client retrying "still in flight" with the key
                        continue
                    break
                refund_id = response.json()["id"] if response.status_code == 201 else None
                with lock:
                    results.append((response.status_code, elapsed, refund_id, key))
        finally:
            connection.close()

    # Warm up this process (imports, URL resolver, first connection) before the clock.
    Client().get("/api/v1/refunds/request", **auth)
    connection.close()
    while time.time() < spec["start_at"]:
        time.sleep(0.001)
    began = time.time()
    threads = [threading.Thread(target=loop) for _ in range(spec["concurrency"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"began": began, "ended": time.time(), "results": results}


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
    env: dict[str, str], setup: dict[str, Any], jobs: list[Any], args: Any, retry: bool
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
    return wall, results


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
                "ALLOWED_HOSTS": "testserver",
                "LOG_LEVEL": "WARNING",
                "PAYMENTS_MODE": "sandbox",
                "STRIPE_API_KEY": "",
                "CELERY_BROKER_URL": "",
                "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            }
        )
        setup = _child("setup", env)
        rng = random.Random(42)
        ids = setup["payment_ids"]

        jobs = [(rng.choice(ids), f"tp-{i}") for i in range(args.requests)]
        wall, results = _load(env, setup, jobs, args, retry=False)
        latencies = [ms for _, ms, _, _ in results]

        before = _child("count", env)["refunds"]
        keys = [(rng.choice(ids), f"dup-{k}") for k in range(args.duplicate_keys)]
        replay = [job for job in keys for _ in range(args.replays)]
        rng.shuffle(replay)
        dup_wall, dup_results = _load(env, setup, replay, args, retry=True)
        counted = _child("count", env)
        created = counted["refunds"] - before
        ids_per_key: dict[str, set[int]] = {}
        for code, _, refund_id, key in dup_results:
            if code == 201:
                ids_per_key.setdefault(key, set()).add(refund_id)
        return {
            "engine": counted["engine"],
            "client": "django.test.Client: in-process WSGI through every middleware, DRF, "
            "bearer-token auth, Idempotency-Key layer and the refund_request service",
            "processes": args.processes,
            "threads_per_process": args.concurrency,
            # Django's persistent connections (settings DB_CONN_MAX_AGE; SQLite always 0):
            # each client thread keeps one connection for the whole run, as a WSGI worker
            # thread would.
            "conn_max_age": env.get("DB_CONN_MAX_AGE", "60") if database_url else "0",
            # A refund request hands nothing to Celery (only approval queues the execution,
            # on commit), so eager Celery in the bench does not touch the measured path.
            "celery_on_request_path": False,
            "throughput": {
                "requests": len(results),
                "statuses": _statuses(results),
                "requests_per_second": round(len(results) / wall, 1),
                "latency_ms": {
                    "p50": round(statistics.median(latencies), 2),
                    "p95": round(_percentile(latencies, 95), 2),
                    "p99": round(_percentile(latencies, 99), 2),
                },
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
        "--only", choices=["sqlite", "postgresql"], help="measure one engine instead of both"
    )
    parser.add_argument("--role", choices=["setup", "load", "count"], help=argparse.SUPPRESS)
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
