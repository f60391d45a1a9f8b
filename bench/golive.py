"""Wall time of the default offline go-live suite, end to end, printed as JSON.

    .venv/bin/python bench/golive.py [--suite default] [--workers 1,2] [--skip-celery]

Three figures, each a fresh database and a `manage.py golive run` subprocess timed from
start to exit (Django start-up, planning, every trial, storing rows, the gate):

- inline: the embedded default — SQLite file, trials in-process (thread pool);
- celery_1 / celery_2: PostgreSQL + Redis broker and result backend, with 1 and 2 real
  `celery -A backoffice worker --concurrency 1` processes started (and pinged) before the
  clock starts, so worker boot is not counted; the command fans out one task per trial in a
  chord and waits for the callback's verdict.

Needs PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379 for the Celery figures
(skipped with a reason otherwise). Uses its own databases (bo_golive_bench, Redis db 13/14).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
CELERY = str(ROOT / ".venv" / "bin" / "celery")
PG = "postgres://postgres@127.0.0.1:5432"
BENCH_DB = "bo_golive_bench"
BROKER = "redis://127.0.0.1:6379/13"
BACKEND = "redis://127.0.0.1:6379/14"
POOL = "prefork"


def _up(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "DATABASE_URL"))}
    env.update({"SECRET_KEY": "bench-only", "DEBUG": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    env.update(extra)
    return env


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def _timed_run(env: dict[str, str], suite: str, executor: str, out: Path) -> dict[str, Any]:
    started = time.perf_counter()
    proc = _manage(
        env,
        "golive",
        "run",
        "--suite",
        suite,
        "--executor",
        executor,
        "--no-progress",
        "--json",
        str(out),
        "--timeout",
        "600",
    )
    wall = time.perf_counter() - started
    if not out.exists():
        raise SystemExit(f"golive run failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    data = json.loads(out.read_text())
    return {
        "wall_seconds": round(wall, 2),
        "run_seconds": round(data["seconds"] or 0.0, 2),
        "trials": data["trials"],
        "trials_per_second": round(data["trials"] / wall, 1),
        "verdict": data["verdict"],
        "exit_code": proc.returncode,
    }


def bench_inline(suite: str, tmp: Path) -> dict[str, Any]:
    env = _env(DATABASE_URL=f"sqlite:///{tmp / 'inline.sqlite3'}")
    migrate = _manage(env, "migrate", "--no-input", "-v0")
    if migrate.returncode:
        raise SystemExit(migrate.stderr)
    return {"database": "sqlite", **_timed_run(env, suite, "inline", tmp / "inline.json")}


def _recreate_pg() -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")


def bench_celery(
    suite: str, workers: int, tmp: Path, *, pool: str, concurrency: int, prefetch: int
) -> dict[str, Any]:
    _recreate_pg()
    env = _env(
        DATABASE_URL=f"{PG}/{BENCH_DB}",
        CELERY_BROKER_URL=BROKER,
        CELERY_RESULT_BACKEND=BACKEND,
        DB_CONN_MAX_AGE="60",
    )
    migrate = _manage(env, "migrate", "--no-input", "-v0")
    if migrate.returncode:
        raise SystemExit(migrate.stderr)
    subprocess.run(
        [CELERY, "-A", "backoffice", "purge", "-f"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=False,
    )
    procs: list[subprocess.Popen[bytes]] = []
    names = [f"golive-bench-{os.getpid()}-{i}@%h" for i in range(workers)]
    try:
        for name in names:
            procs.append(
                subprocess.Popen(
                    [
                        CELERY,
                        "-A",
                        "backoffice",
                        "worker",
                        "--pool",
                        pool,
                        "--concurrency",
                        str(concurrency),
                        "--prefetch-multiplier",
                        str(prefetch),
                        "--loglevel",
                        "WARNING",
                        "--hostname",
                        name,
                        "--without-gossip",
                        "--without-mingle",
                    ],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ping = subprocess.run(
                [CELERY, "-A", "backoffice", "inspect", "ping", "--timeout", "1"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if ping.stdout.count("pong") >= workers:
                break
            time.sleep(0.5)
        else:
            raise SystemExit("celery workers did not answer ping within 60 s")
        result = _timed_run(env, suite, "celery", tmp / f"celery{workers}.json")
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    return {
        "database": "postgresql",
        "broker": "redis",
        "workers": workers,
        "pool": pool,
        "concurrency": concurrency,
        "prefetch_multiplier": prefetch,
        **result,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="default")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--skip-celery", action="store_true")
    parser.add_argument("--skip-inline", action="store_true")
    parser.add_argument("--pool", default=POOL, help="celery worker --pool")
    parser.add_argument(
        "--concurrency", type=int, default=1, help="celery worker --concurrency (each worker)"
    )
    parser.add_argument(
        "--prefetch-multiplier", type=int, default=1, help="celery worker --prefetch-multiplier"
    )
    args = parser.parse_args()
    figures: dict[str, Any] = {
        "suite": args.suite,
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
    }
    with tempfile.TemporaryDirectory(prefix="golive-bench-") as tmpdir:
        tmp = Path(tmpdir)
        if not args.skip_inline:
            figures["inline"] = bench_inline(args.suite, tmp)
        if args.skip_celery:
            figures["celery"] = "skipped (--skip-celery)"
        elif not (_up(5432) and _up(6379)):
            figures["celery"] = "skipped: PostgreSQL 5432 and Redis 6379 must answer on 127.0.0.1"
        else:
            for n in (int(w) for w in args.workers.split(",")):
                figures[f"celery_{n}"] = bench_celery(
                    args.suite,
                    n,
                    tmp,
                    pool=args.pool,
                    concurrency=args.concurrency,
                    prefetch=args.prefetch_multiplier,
                )
    figures["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(figures, indent=2))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
