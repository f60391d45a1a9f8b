"""The go-live run watchdog: every running run has a deadline, and one that passes it without
progress is re-dispatched once, then ended as resumable.

Why: a Celery worker killed with `kill -9` leaves its unit's message unacknowledged; the
broker hands it back after its visibility timeout, but a message can also be lost outright (a
broker restarted without persistence), a chord whose part failed never calls back, and an
in-process run whose process died (the CLI killed, the web server restarted) never ends. Any
of these left the run "running" for ever.

The deadline moves with progress: a run is stalled only when no trial was stored for
EVALS_RUN_STALL_SECONDS (longer than the broker's visibility timeout, so the broker's own
redelivery comes first). A healthy run, however long, stores a trial at least once per unit
time limit. Re-dispatching is safe: a unit is idempotent on its key, so a copy that was only
late finds its row and returns.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from evals.models import EvalRun, Executor, RunStatus, TrialResult
from evals.run_words import error_english
from evals.selectors import RUN_REDISPATCH_LIMIT, run_last_progress, stall_deadline
from evals.services import runs
from evals.services.run_finalise import eval_run_finalise
from evals.services.run_plan import run_suite, run_units
from identity.audit import audit_record


@dataclass(frozen=True)
class WatchdogAction:
    run_id: int
    action: str  # "extended", "finalised", "redispatched", "ended"
    missing: int = 0


def _check(run_id: int, now: dt.datetime) -> WatchdogAction | None:
    with transaction.atomic():
        run = EvalRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status != RunStatus.RUNNING:
            return None
        if run.deadline_at is not None and now < run.deadline_at:
            return None
        last = run_last_progress(run_id=run.pk)
        if last is not None and stall_deadline(last) > now:
            # A trial was stored within the stall window: not stalled, move the deadline on.
            run.deadline_at = stall_deadline(last)
            run.save(update_fields=["deadline_at"])
            return WatchdogAction(run.pk, "extended")
        expected = run_units(suite=run_suite(run=run))
        # Any stored row counts, error rows included: finalise judges those, resume re-runs them.
        done = {
            f"{d}/{t}/{p}/{n}"
            for d, t, p, n in TrialResult.objects.filter(run_id=run.pk).values_list(
                "domain", "task_id", "persona", "trial"
            )
        }
        missing = [u for u in expected if u.key not in done]
        if not missing:
            # Every unit is stored but nothing finalised it (a lost chord callback).
            transaction.on_commit(functools.partial(eval_run_finalise, run_id=run.pk))
            return WatchdogAction(run.pk, "finalised")
        if run.executor == Executor.CELERY and run.redispatches < RUN_REDISPATCH_LIMIT:
            run.redispatches += 1
            run.deadline_at = stall_deadline(now)
            run.save(update_fields=["redispatches", "deadline_at"])
            transaction.on_commit(
                functools.partial(
                    runs.dispatch_celery, run_id=run.pk, suite_hash=run.suite_hash, pending=missing
                )
            )
            audit_record(
                actor=None,
                action="evals.run.redispatch",
                target=run,
                after={"missing": len(missing), "redispatches": run.redispatches},
            )
            return WatchdogAction(run.pk, "redispatched", len(missing))
        run.status = RunStatus.FAILED
        run.finished_at = now
        run.error_key = "deadline_resent" if run.redispatches else "deadline"
        run.error_params = {"missing": len(missing), "expected": len(expected), "run": run.pk}
        run.error_message = error_english(run.error_key, run.error_params)
        run.save(
            update_fields=["status", "finished_at", "error_message", "error_key", "error_params"]
        )
        audit_record(
            actor=None,
            action="evals.run.deadline",
            target=run,
            after={
                "status": run.status,
                "missing": len(missing),
                "redispatches": run.redispatches,
            },
        )
        return WatchdogAction(run.pk, "ended", len(missing))


def eval_run_watchdog(*, now: dt.datetime | None = None) -> list[WatchdogAction]:
    """Check every running run past its deadline (the beat runs this every minute). Each run
    is judged under its own row lock, so two watchdogs never both re-dispatch one run."""
    now = now or timezone.now()
    overdue = EvalRun.objects.filter(status=RunStatus.RUNNING).exclude(deadline_at__gt=now)
    actions = []
    for run_id in overdue.values_list("pk", flat=True):
        action = _check(run_id, now)
        if action is not None:
            actions.append(action)
    return actions
