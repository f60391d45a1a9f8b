"""The Celery path: one task per trial, a chord whose callback finalises the run.

With eager tasks (the test settings) the same chord runs in-process. The `celery_worker`
tests run against a real worker on Redis and PostgreSQL; `.ci/run` starts that worker and
sets GOLIVE_CELERY_WORKER=1 (see docs/golive.md)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
from django.db import connection

from backoffice.celery import app
from evals import services
from evals.models import EvalRun, Executor, RunStatus, TrialResult


@pytest.mark.django_db
def test_the_chord_runs_every_trial_then_finalises_the_run_with_eager_tasks(
    rita, make_suite, django_capture_on_commit_callbacks
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.CELERY)
    with django_capture_on_commit_callbacks(execute=True):
        services.eval_run_execute(actor=rita, run_id=run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"
    assert TrialResult.objects.filter(run=run).count() == run.total_units == 20


@pytest.mark.django_db
def test_nothing_is_dispatched_before_the_running_status_commits(
    rita, make_suite, django_capture_on_commit_callbacks
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.CELERY)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.eval_run_execute(actor=rita, run_id=run.pk)
    assert len(callbacks) == 1
    assert not TrialResult.objects.filter(run=run).exists()


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


def _wait(run: EvalRun, timeout: float = 120.0) -> EvalRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status != RunStatus.RUNNING:
            return run
        time.sleep(0.2)
    raise AssertionError(f"run #{run.pk} still running after {timeout} s")


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_chord_and_finalises_the_run(live_celery, rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.CELERY)
    services.eval_run_execute(actor=rita, run_id=run.pk)
    run = _wait(run)
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"
    assert TrialResult.objects.filter(run=run).count() == run.total_units == 20


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_resumes_a_half_finished_run_without_duplicates(
    live_celery, rita, make_suite
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.CELERY)
    units = services.run_units(suite=services.run_suite(run=run))
    for unit in units[:7]:
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    services.eval_run_resume(actor=rita, run_id=run.pk)
    run = _wait(run)
    assert run.status == RunStatus.COMPLETED
    keys = [t.key for t in TrialResult.objects.filter(run=run)]
    assert sorted(keys) == sorted(u.key for u in units)


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_resume_reruns_only_the_stored_error_rows_in_place(
    live_celery, rita, make_suite
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.CELERY)
    units = services.run_units(suite=services.run_suite(run=run))
    for unit in units:
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    planted = {t.key: t.pk for t in TrialResult.objects.filter(run=run).order_by("id")[:4:2]}
    TrialResult.objects.filter(pk__in=planted.values()).update(outcome="infrastructure")
    untouched = {
        t.key: t.created_at
        for t in TrialResult.objects.filter(run=run).exclude(pk__in=planted.values())
    }
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)

    services.eval_run_resume(actor=rita, run_id=run.pk)
    run = _wait(run)

    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"
    rows = {t.key: t for t in TrialResult.objects.filter(run=run)}
    assert len(rows) == len(units)
    assert {k: rows[k].pk for k in planted} == planted
    assert all(rows[k].outcome == "pass" for k in planted)
    assert {k: rows[k].created_at for k in untouched} == untouched  # not re-run
