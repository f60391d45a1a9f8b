"""Real Celery workers for the `celery_worker` tests (tests/evals/test_celery.py,
tests/security/test_fault_refund_celery.py): the `live_celery` fixture switches this process
from eager tasks to the broker .ci/run configures, and `spawn_worker` starts a worker of the
test's own, on a queue only that test uses, sharing the test's PostgreSQL database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from django.db import connection

from backoffice.celery import app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def live_celery() -> Iterator[None]:
    if os.environ.get("GOLIVE_CELERY_WORKER") != "1":
        pytest.skip("needs a real Celery worker: set GOLIVE_CELERY_WORKER=1 (.ci/run does)")
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the test database: run on PostgreSQL")
    broker = os.environ["CELERY_BROKER_URL"]
    saved = {k: app.conf[k] for k in ("task_always_eager", "broker_url", "result_backend")}
    app.conf.update(
        task_always_eager=False,
        broker_url=broker,
        result_backend=os.environ.get("CELERY_RESULT_BACKEND", broker),
    )
    try:
        yield
    finally:
        app.conf.update(saved)


def worker_hostname(name: str) -> str:
    return f"{name}-{os.getpid()}@{socket.gethostname()}"


def spawn_worker(
    queues: Sequence[str], name: str, *, program: Sequence[str] | None = None
) -> subprocess.Popen[bytes]:
    """A worker on `queues` (the CI leg's worker never sees them), in its own process group so
    that `kill -9` of the group takes the pool children with it. `program` replaces the
    `celery` executable, e.g. a module that instruments the worker before starting it."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "DB_CONN_MAX_AGE": "0",
        "CELERY_DB_REUSE_MAX": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "ci-celery-worker-only"),
        # Workers import test helpers (a slow agent, an instrumented provider) from this
        # repository's tests package.
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.Popen(
        [
            *(program or [str(Path(sys.executable).with_name("celery"))]),
            "-A",
            "backoffice",
            "worker",
            "-Q",
            ",".join(queues),
            "--concurrency=1",
            "--loglevel=WARNING",
            "--hostname",
            f"{name}-{os.getpid()}@%h",
        ],
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )


def wait_until_up(worker: subprocess.Popen[bytes], name: str, *, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not app.control.ping(destination=[worker_hostname(name)], timeout=1.0):
        assert worker.poll() is None, f"worker {name} exited with {worker.returncode}"
        assert time.monotonic() < deadline, f"worker {name} not up after {limit} s"


def kill_9(worker: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker's whole process group: the main process and its pool."""
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()


def stop(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
