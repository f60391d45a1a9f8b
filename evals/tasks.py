"""Celery tasks: one per trial, and the chord callback that finalises the run.

`run_trial` is acknowledged late (a worker killed mid-trial leaves the message unacked, so
the broker redelivers it) and idempotent on the trial's unique key: a redelivered task that
finds its row returns at once, and two copies racing lose nothing — the unique constraint
lets exactly one insert win.
"""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task
from django.db import close_old_connections

from evals.engine.runner import WorkUnit
from evals.services import eval_run_finalise, eval_run_watchdog, trial_execute


# `ignore_result`: the chord body reads the stored rows, never the header's results, and the
# Redis backend joins a chord by pushing each part to the chord's own list whatever this
# flag says — so storing every trial's result as well (a read and a write to Redis per task)
# bought nothing.
@shared_task(
    bind=True,
    name="evals.tasks.run_trial",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
)
def run_trial(self: Task, run_id: int, suite_hash: str, unit: dict[str, Any]) -> str:
    if not (self.request.is_eager or self.request.called_directly):
        # A worker keeps its database connection across tasks (CELERY_DB_REUSE_MAX): drop it
        # here if it broke or outlived CONN_MAX_AGE (no round trip otherwise). Never when eager
        # or called directly: the connection is the caller's, possibly inside its transaction.
        close_old_connections()
    work = WorkUnit(**unit)
    trial_execute(run_id=run_id, suite_hash=suite_hash, unit=work)
    return work.key


@shared_task(name="evals.tasks.run_finalise", acks_late=True)
def run_finalise(run_id: int) -> str:
    # The chord body is `run_finalise.si(run_id)`: immutable, so the header's results (the
    # trial keys) are not passed; finalise reads the stored rows instead.
    return eval_run_finalise(run_id=run_id).status


@shared_task(name="evals.tasks.run_watchdog")
def run_watchdog() -> int:
    """Every minute (beat): re-dispatch or end runs past their deadline; returns how many
    runs it acted on."""
    return len(eval_run_watchdog())
