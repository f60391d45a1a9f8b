"""Audit trail figures, printed as JSON.

1. write_cost: what `audit_record` adds to a service call. A representative write (update
   one operator row in a transaction) is timed with and without the audit step, interleaved,
   many times; the added cost is reported as differences of mean, p50 and p95 (ms).
2. verify: `manage.py audit verify` over 1,000,000 events (a valid chain bulk-loaded into a
   scratch database), run as a separate process: wall time and peak RSS, and the same for
   100,000 events to show that memory does not grow with the chain.

Engines: SQLite (a temporary file) always; PostgreSQL with --postgres (database
bo_bench_audit on postgres://postgres@127.0.0.1:5432, dropped and recreated), or when
DATABASE_URL points at PostgreSQL.

    .venv/bin/python bench/audit.py [--postgres] [--events 1000000] [--iterations 2000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PG_BENCH_URL = "postgres://postgres@127.0.0.1:5432/bo_bench_audit"


def _env(database_url: str, var_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        VAR_DIR=var_dir,
        SECRET_KEY="bench-only-secret-key",
        DEBUG="0",
        DJANGO_SETTINGS_MODULE="backoffice.settings",
        LOG_LEVEL="WARNING",
    )
    return env


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def write_cost(iterations: int) -> dict[str, Any]:
    from django.db import transaction

    from identity.audit import audit_record
    from identity.models import Operator

    operator, _ = Operator.objects.get_or_create(username="bench-op")

    def call(with_audit: bool, i: int) -> tuple[float, float]:
        started, cpu = time.perf_counter(), time.thread_time()
        with transaction.atomic():
            Operator.objects.filter(pk=operator.pk).update(display_name=f"bench {i}")
            if with_audit:
                audit_record(
                    actor=operator,
                    action="operator.rename",
                    target=operator,
                    before={"display_name": f"bench {i - 1}"},
                    after={"display_name": f"bench {i}"},
                )
        return (time.perf_counter() - started) * 1000, (time.thread_time() - cpu) * 1000

    for i in range(50):  # warm up connections, statement caches, the chain head row
        call(True, i)
        call(False, i)
    plain, audited, plain_cpu, audited_cpu = [], [], [], []
    for i in range(iterations):
        wall, cpu = call(False, i)
        plain.append(wall)
        plain_cpu.append(cpu)
        wall, cpu = call(True, i)
        audited.append(wall)
        audited_cpu.append(cpu)
    return {
        "iterations": iterations,
        "service_call_ms": {
            "without_audit": {
                "mean": statistics.fmean(plain),
                "p50": _percentile(plain, 0.5),
                "p95": _percentile(plain, 0.95),
            },
            "with_audit": {
                "mean": statistics.fmean(audited),
                "p50": _percentile(audited, 0.5),
                "p95": _percentile(audited, 0.95),
            },
        },
        "added_by_audit_ms": {
            "mean": statistics.fmean(audited) - statistics.fmean(plain),
            "p50": _percentile(audited, 0.5) - _percentile(plain, 0.5),
            "p95": _percentile(audited, 0.95) - _percentile(plain, 0.95),
        },
        # CPU time of this process only: unlike wall time, hardly moved by other load on
        # the machine (for PostgreSQL it leaves out the server's share).
        "added_by_audit_cpu_ms": {
            "mean": statistics.fmean(audited_cpu) - statistics.fmean(plain_cpu),
            "p50": _percentile(audited_cpu, 0.5) - _percentile(plain_cpu, 0.5),
            "p95": _percentile(audited_cpu, 0.95) - _percentile(plain_cpu, 0.95),
        },
    }


def _clear_audit_tables() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("TRUNCATE identity_auditevent")
        else:
            cursor.execute("DELETE FROM identity_auditevent")
        cursor.execute("DELETE FROM identity_auditchainhead")


def load_chain(start_seq: int, count: int, prev_hash: str) -> str:
    """Append `count` valid events after `prev_hash`; returns the new last hash."""
    from django.db import connection, transaction

    from identity.audit import CONTENT_FIELDS, hash_values

    columns = [*CONTENT_FIELDS, "prev_hash", "hash"]
    base = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    batch: list[tuple[Any, ...]] = []
    pg = connection.vendor == "postgresql"

    def flush() -> None:
        with connection.cursor() as cursor:
            if pg:
                with cursor.cursor.copy(
                    f"COPY identity_auditevent ({', '.join(columns)}) FROM STDIN"
                ) as copy:
                    for row in batch:
                        copy.write_row(row)
            else:
                placeholders = ", ".join(["%s"] * len(columns))
                cursor.executemany(
                    f"INSERT INTO identity_auditevent ({', '.join(columns)}) VALUES ({placeholders})",
                    batch,
                )
        batch.clear()

    with transaction.atomic():
        for seq in range(start_seq, start_seq + count):
            before = {"assignee": seq % 17, "status": "open"}
            after = {"assignee": seq % 19, "status": "assigned", "note": f"reassigned #{seq}"}
            values = (
                seq,
                base + dt.timedelta(milliseconds=seq),
                "operator",
                seq % 50 + 1,
                f"operator{seq % 50}",
                "ticket.assign",
                "tickets.ticket",
                str(seq // 3),
                before,
                after,
                uuid.UUID(int=seq).hex,
                f"10.0.{seq % 250}.{seq % 200 + 1}",
            )
            digest = hash_values(prev_hash, values)
            stored_time = values[1] if pg else values[1].isoformat(sep=" ")
            row = (
                *values[:1],
                stored_time,
                *values[2:8],
                json.dumps(before),
                json.dumps(after),
                *values[10:],
                prev_hash,
                digest,
            )
            batch.append(row)
            prev_hash = digest
            if len(batch) >= 10_000:
                flush()
        if batch:
            flush()
        with connection.cursor() as cursor:
            # Fresh statistics, as autovacuum would gather: without them PostgreSQL may plan
            # each keyset chunk as a sequential scan and sort of the whole table.
            cursor.execute("ANALYZE identity_auditevent")
            cursor.execute("DELETE FROM identity_auditchainhead")
            cursor.execute(
                "INSERT INTO identity_auditchainhead (id, seq, hash) VALUES (1, %s, %s)",
                [start_seq + count - 1, prev_hash],
            )
    return prev_hash


def run_verify(env: dict[str, str], workers: int = 1) -> dict[str, Any]:
    """`manage.py audit verify` in a fresh process; its peak RSS is that child's alone."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", _VERIFY_CHILD, str(workers)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"verify failed: {result.stderr or result.stdout}")
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["process_wall_s"] = round(wall, 2)
    figures["children_max_rss_mb_so_far"] = round(
        max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024, 1
    )
    return figures


# Runs verify_chain (what `manage.py audit verify` runs) and reports its own time and peak RSS,
# so Django start-up is not counted as verification time.
_VERIFY_CHILD = """
import json, resource, sys, time, django
django.setup()
from identity.audit_verify import verify_chain
workers = int(sys.argv[1])
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started, cpu = time.perf_counter(), time.process_time()
result = verify_chain(workers=workers)
elapsed = time.perf_counter() - started
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "workers": workers, "ok": result.ok, "events": result.checked, "verify_s": round(elapsed, 2),
    "cpu_s": round(time.process_time() - cpu + children.ru_utime + children.ru_stime, 2),
    "worker_peak_rss_mb": round(children.ru_maxrss / 1024, 1),
    "events_per_s": round(result.checked / elapsed),
    "rss_after_startup_mb": round(rss_before / 1024, 1),
    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
}))
"""


def engine_run(engine: str, events: int, iterations: int) -> dict[str, Any]:
    _setup_django()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    out: dict[str, Any] = {
        "engine": engine,
        "database": connection.settings_dict["NAME"],
        "load_average_1m_at_start": os.getloadavg()[0],
    }
    _clear_audit_tables()
    out["write_cost"] = write_cost(iterations)
    _clear_audit_tables()
    small = min(100_000, events)
    started = time.perf_counter()
    last = load_chain(1, small, "0" * 64)
    env = dict(os.environ)
    out["verify"] = {f"{small}_events": run_verify(env)}
    if events > small:
        load_chain(small + 1, events - small, last)
    out["load_s"] = round(time.perf_counter() - started, 1)
    out["verify"][f"{events}_events"] = run_verify(env)
    out["verify"][f"{events}_events_2_workers"] = run_verify(env, workers=2)
    out["load_average_1m_at_end"] = os.getloadavg()[0]
    return out


def _recreate_pg_database() -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS bo_bench_audit")
        conn.execute("CREATE DATABASE bo_bench_audit")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--postgres", action="store_true", help="also run on PostgreSQL (bo_bench_audit)"
    )
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--engine", choices=["sqlite", "postgres"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.engine:  # child: environment already points at the scratch database
        print(json.dumps(engine_run(args.engine, args.events, args.iterations)))
        return
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        targets = [("sqlite", f"sqlite:///{tmp}/audit.sqlite3")]
        if args.postgres or os.environ.get("DATABASE_URL", "").startswith("postgres"):
            _recreate_pg_database()
            targets.append(("postgres", PG_BENCH_URL))
        for engine, url in targets:
            result = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--engine",
                    engine,
                    "--events",
                    str(args.events),
                    "--iterations",
                    str(args.iterations),
                ],
                cwd=ROOT,
                env=_env(url, tmp),
                capture_output=True,
                text=True,
                check=False,
            )
            if result.returncode != 0:
                runs.append({"engine": engine, "error": result.stderr[-2000:]})
            else:
                runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
    print(
        json.dumps(
            {
                "benchmark": "audit",
                "targets": {"added_write_ms": 1.0, "verify_1m_s": 10.0},
                "runs": runs,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
