"""The cost of storing one finished trial (evals.services.store.trial_store), printed as JSON.

    .venv/bin/python bench/trial_store.py --postgres        # database bo_bench_trial_store
    .venv/bin/python bench/trial_store.py                   # SQLite (a temporary file)

Runs the retail and membership domains once for real (2 trials per task, four personas) to
get real trajectories, then stores their records again under new trial numbers, --rounds
times, into a second run, and divides: CPU of this process (building the row, the search
document, the driver), CPU of the PostgreSQL backend serving this connection (from
/proc/<pid>/stat: parsing, to_tsvector, the GIN insert, WAL) and wall time, per stored trial.
Run it in two trees (before and after a change to trial_store) and compare the CPU figures;
wall time on a loaded machine is noise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is not a package: its scripts import each other from their own directory.
from inbox import configure, log  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def backend_cpu(pid: int | None) -> float:
    """Seconds of CPU the PostgreSQL backend `pid` has used (user + system)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def records_of(run_id: int) -> list[Any]:
    from evals.engine.runner import TrialRecord
    from evals.models import TrialResult

    return [
        TrialRecord(
            t.domain,
            t.task_id,
            t.persona,
            t.trial,
            t.seed,
            t.reward,
            t.failure_class or "none",
            t.termination,
            components=t.components,
            diff=tuple(t.diff),
            notes=tuple(t.notes),
            error=t.error,
            tool_calls=t.tool_calls,
            agent_turns=t.agent_turns,
            policy_violations=t.policy_violations,
            trajectory=t.trajectory,
        )
        for t in TrialResult.objects.filter(run_id=run_id)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--postgres-db", default="bo_bench_trial_store")
    parser.add_argument("--sqlite-path", help="SQLite file to use (default: a temporary one)")
    args = parser.parse_args()
    args.reuse = False
    backend = configure(args, prefix="bench-trial-store-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from evals import services
    from evals.services.suites import suite_from_mapping
    from identity import roles
    from identity.models import Operator, Role

    suite = suite_from_mapping(
        {
            "name": "bench",
            "seed": 7,
            "trials": 2,
            "workers": 1,
            "personas": ["baseline", "impatient", "skeptical", "confused"],
            "domains": [{"name": "retail"}, {"name": "membership"}],
            "agent": {"model": "sandbox/fault:skip_confirmation"},
            "guard_mode": "observe",
        }
    )
    actor = Operator.objects.create_user(username="rita", password="x" * 20)
    roles.grant(actor, Role.RELEASE_MANAGER)
    source = services.eval_run_create(actor=actor, suite=suite)
    services.eval_run_execute(actor=actor, run_id=source.pk)
    records = records_of(source.pk)
    target = services.eval_run_create(actor=actor, suite=suite)
    pid = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = int(cursor.fetchone()[0])
    log(f"{backend}: storing {len(records)} records x {args.rounds}")
    # One round first, not counted: caches, prepared paths, the first pages of the indexes.
    for record in records:
        services.trial_store(run_id=target.pk, record=replace(record, trial=record.trial + 1000))
    wall, cpu, server = time.perf_counter(), time.process_time(), backend_cpu(pid)
    for n in range(1, args.rounds + 1):
        for record in records:
            stored = services.trial_store(
                run_id=target.pk, record=replace(record, trial=record.trial + 1000 * (n + 1))
            )
            assert stored
    count = len(records) * args.rounds
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    server = backend_cpu(pid) - server
    trajectory_bytes = sum(len(json.dumps(r.trajectory)) for r in records) / len(records)
    print(
        json.dumps(
            {
                "backend": backend,
                "stored": count,
                "mean_trajectory_bytes": round(trajectory_bytes),
                "client_cpu_us_per_trial": round(cpu / count * 1e6),
                "server_cpu_us_per_trial": round(server / count * 1e6) if pid else None,
                "wall_us_per_trial": round(wall / count * 1e6),
                "load_average": os.getloadavg(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
