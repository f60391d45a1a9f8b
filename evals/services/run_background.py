"""Runs started or resumed from the UI or the API: the request returns once the run is queued,
and the trials go on in Celery workers when a broker is configured, else in a background
thread of this process (`EVALS_UI_INLINE = True` runs them in the request, for tests)."""

from __future__ import annotations

import functools
import threading

from django.conf import settings
from django.db import close_old_connections, transaction

from evals.engine.runner import WorkUnit
from evals.models import EvalRun, Executor
from evals.services.runs import eval_run_create, eval_run_execute, run_pending, run_start
from evals.services.suites import Suite
from identity.models import Operator


def _continue(run_id: int, pending: list[WorkUnit]) -> None:
    run = EvalRun.objects.get(pk=run_id)
    if getattr(settings, "EVALS_UI_INLINE", False):
        run_pending(run=run, pending=pending, on_progress=None)
        return

    def work() -> None:
        try:
            run_pending(run=run, pending=pending, on_progress=None)
        except Exception:  # noqa: S110 - eval_run_interrupt recorded it on the run
            pass
        finally:
            close_old_connections()

    threading.Thread(target=work, name=f"golive-resume-{run_id}", daemon=True).start()


def eval_run_resume_background(
    *, actor: Operator, run_id: int, suite: Suite | None = None
) -> EvalRun:
    """From the API: the checks of `eval_run_resume` now (a refusal is the answer), then the
    pending units in the background, as `eval_run_start_background` runs a new run."""
    celery = bool(settings.CELERY_BROKER_URL) and not settings.CELERY_TASK_ALWAYS_EAGER
    run, pending = run_start(
        actor=actor,
        run_id=run_id,
        action="evals.run.resume",
        executor=Executor.CELERY if celery else Executor.INLINE,
        workers=None,
        suite=suite,
    )
    if not celery:
        transaction.on_commit(functools.partial(_continue, run.pk, pending))
    return run


def _kickoff(actor_id: int, run_id: int, celery: bool) -> None:
    actor = Operator.objects.get(pk=actor_id)
    if celery or getattr(settings, "EVALS_UI_INLINE", False):
        eval_run_execute(actor=actor, run_id=run_id)
        return

    def work() -> None:
        try:
            eval_run_execute(actor=actor, run_id=run_id)
        except Exception:  # noqa: S110 - eval_run_interrupt recorded it on the run
            pass
        finally:
            close_old_connections()

    threading.Thread(target=work, name=f"golive-run-{run_id}", daemon=True).start()


def eval_run_start_background(*, actor: Operator, suite: Suite) -> EvalRun:
    """From the UI or the API: create the run and, once that commits, hand it to Celery
    workers when a broker is configured, else to a background thread of this process (the
    embedded default; `EVALS_UI_INLINE = True` runs it in the request instead, for tests)."""
    celery = bool(settings.CELERY_BROKER_URL) and not settings.CELERY_TASK_ALWAYS_EAGER
    run = eval_run_create(
        actor=actor, suite=suite, executor=Executor.CELERY if celery else Executor.INLINE
    )
    transaction.on_commit(functools.partial(_kickoff, actor.pk, run.pk, celery))
    return run
