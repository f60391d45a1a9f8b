"""Issue 14, finding 5: a go-live run whose unit never reports (its message lost, its worker
killed, its process gone) stayed "running" for ever. Every run now has a deadline that moves
with progress; past it, the watchdog re-dispatches the missing units once, then ends the run
as resumable with a hint. The broker here is a lossy stand-in for `dispatch_celery` that
drops chosen units' messages (and so, as a real chord would, never calls back)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from evals import selectors, services
from evals.engine.runner import WorkUnit
from evals.models import EvalRun, Executor, RunStatus, TrialResult
from evals.services import runs
from identity.models import AuditEvent
from tests.conftest import verified_client

pytestmark = pytest.mark.django_db

REAL_DISPATCH = runs.dispatch_celery


class LossyBroker:
    """Delivers every unit except those in `lose` (each loss used up once it happens); the
    chord of a dispatch that lost a unit never calls back. Records what each dispatch sent."""

    def __init__(self, lose: list[str]) -> None:
        self.lose = list(lose)
        self.sent: list[list[str]] = []

    def __call__(self, *, run_id: int, suite_hash: str, pending: list[WorkUnit]) -> None:
        self.sent.append([u.key for u in pending])
        lost = [u for u in pending if u.key in self.lose]
        if not lost:
            REAL_DISPATCH(run_id=run_id, suite_hash=suite_hash, pending=pending)
            return
        for unit in lost:
            self.lose.remove(unit.key)
        for unit in pending:
            if unit not in lost:
                services.trial_execute(run_id=run_id, suite_hash=suite_hash, unit=unit)


@pytest.fixture
def started(
    rita: Any, make_suite: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> Callable[..., tuple[EvalRun, LossyBroker]]:
    def start(lose_times: int = 1) -> tuple[EvalRun, LossyBroker]:
        run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.CELERY)
        unit = services.run_units(suite=services.run_suite(run=run))[3]
        broker = LossyBroker([unit.key] * lose_times)
        monkeypatch.setattr(runs, "dispatch_celery", broker)
        with django_capture_on_commit_callbacks(execute=True):
            services.eval_run_execute(actor=rita, run_id=run.pk)
        run.refresh_from_db()
        return run, broker

    return start


def _watch(django_capture_on_commit_callbacks: Any, at: dt.datetime) -> list[Any]:
    with django_capture_on_commit_callbacks(execute=True):
        return services.eval_run_watchdog(now=at)


def test_a_lost_unit_is_sent_again_after_the_deadline_and_the_run_completes(
    started: Any, django_capture_on_commit_callbacks: Any
) -> None:
    run, broker = started()
    assert run.status == RunStatus.RUNNING and TrialResult.objects.filter(run=run).count() == 19
    assert run.deadline_at is not None
    # Before the deadline, nothing is done: the broker may still hand the message back.
    assert (
        _watch(django_capture_on_commit_callbacks, run.deadline_at - dt.timedelta(seconds=1)) == []
    )
    # Past the deadline as the watchdog applies it: the stored one, moved on by the trials
    # stored after the start (on a loaded machine they come in more than a second later).
    deadline = selectors.run_deadline(run=run)
    assert deadline is not None and deadline.then == "redispatch"
    actions = _watch(django_capture_on_commit_callbacks, deadline.at + dt.timedelta(seconds=1))
    assert [(a.action, a.missing) for a in actions] == [("redispatched", 1)]
    assert len(broker.sent) == 2 and len(broker.sent[1]) == 1  # only the missing unit
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"
    keys = list(TrialResult.objects.filter(run=run).values_list("task_id", "persona", "trial"))
    assert len(keys) == len(set(keys)) == run.total_units
    assert AuditEvent.objects.filter(action="evals.run.redispatch").count() == 1


def test_a_unit_lost_again_ends_the_run_resumable_with_a_hint_and_resume_completes_it(
    started: Any, rita: Any, django_capture_on_commit_callbacks: Any
) -> None:
    run, broker = started(lose_times=2)
    _watch(django_capture_on_commit_callbacks, run.deadline_at + dt.timedelta(seconds=1))
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.redispatches == 1
    actions = _watch(django_capture_on_commit_callbacks, run.deadline_at + dt.timedelta(seconds=1))
    assert [(a.action, a.missing) for a in actions] == [("ended", 1)]
    assert len(broker.sent) == 2  # re-dispatched once, not twice
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "Could not complete by its deadline: 1 of 20" in run.error_message
    assert f"golive run --resume {run.pk}" in run.error_message
    assert run.error_key == "deadline_resent"
    assert run.error_params == {"missing": 1, "expected": 20, "run": run.pk}
    event = AuditEvent.objects.get(action="evals.run.deadline")
    assert event.after == {"status": "failed", "missing": 1, "redispatches": 1}
    with django_capture_on_commit_callbacks(execute=True):
        services.eval_run_resume(actor=rita, run_id=run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED
    assert TrialResult.objects.filter(run=run).count() == 20


def test_a_slow_run_that_keeps_storing_trials_is_not_touched(
    started: Any, django_capture_on_commit_callbacks: Any
) -> None:
    run, broker = started()
    # A trial stored just now: the run is slow, not stalled, whatever its first deadline said.
    later = run.deadline_at + dt.timedelta(seconds=30)
    newest = TrialResult.objects.filter(run=run).order_by("pk").last()
    assert newest is not None
    TrialResult.objects.filter(pk=newest.pk).update(created_at=later - dt.timedelta(seconds=5))
    actions = _watch(django_capture_on_commit_callbacks, later)
    assert [a.action for a in actions] == ["extended"]
    assert len(broker.sent) == 1
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    assert run.deadline_at == later - dt.timedelta(seconds=5) + dt.timedelta(
        seconds=settings.EVALS_RUN_STALL_SECONDS
    )


def test_an_in_process_run_whose_process_died_is_ended_not_sent_to_workers(
    rita: Any, make_suite: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """`golive run` killed with kill -9 (or the web server restarted mid-run): its units ran in
    that process, so there is nothing to re-dispatch; the run ends with the resume hint."""
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.INLINE)
    units = services.run_units(suite=services.run_suite(run=run))
    EvalRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING, deadline_at=timezone.now() - dt.timedelta(seconds=1)
    )
    for unit in units[:5]:
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    TrialResult.objects.filter(run=run).update(
        created_at=timezone.now() - dt.timedelta(seconds=settings.EVALS_RUN_STALL_SECONDS + 1)
    )
    actions = _watch(django_capture_on_commit_callbacks, timezone.now())
    assert [(a.action, a.missing) for a in actions] == [("ended", 15)]
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "--resume" in run.error_message


def test_a_run_whose_chord_never_called_back_is_finalised(
    rita: Any, make_suite: Any, django_capture_on_commit_callbacks: Any
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=Executor.CELERY)
    for unit in services.run_units(suite=services.run_suite(run=run)):
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    past = timezone.now() - dt.timedelta(seconds=settings.EVALS_RUN_STALL_SECONDS + 1)
    TrialResult.objects.filter(run=run).update(created_at=past)
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, deadline_at=past)
    actions = _watch(django_capture_on_commit_callbacks, timezone.now())
    assert [a.action for a in actions] == ["finalised"]
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"


def test_every_start_sets_a_deadline_and_a_resume_moves_it(
    rita: Any, make_suite: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The web form and the API start through eval_run_start_background, the CLI through
    eval_run_execute; resume (all three) through eval_run_resume: one `_start` sets it."""
    settings.EVALS_UI_INLINE = True
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        web = services.eval_run_start_background(actor=rita, suite=make_suite())
    assert len(callbacks) == 1
    callbacks[0]()
    web.refresh_from_db()
    cli = services.eval_run_create(actor=rita, suite=make_suite())
    services.eval_run_execute(actor=rita, run_id=cli.pk)
    cli.refresh_from_db()
    stall = dt.timedelta(seconds=settings.EVALS_RUN_STALL_SECONDS)
    for run in (web, cli):
        assert run.status == RunStatus.COMPLETED
        assert run.deadline_at is not None and before + stall <= run.deadline_at
        assert run.deadline_at <= timezone.now() + stall


# The deadline is shown: on the run's page (while it runs) and in the run API's JSON. An
# operator watching a stuck run, or a CI job polling the API, otherwise cannot tell a run that
# will be rescued from one that will end, nor when.


def _running(rita: Any, make_suite: Any, executor: str, stored: int) -> EvalRun:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor=executor)
    units = services.run_units(suite=services.run_suite(run=run))
    for unit in units[:stored]:
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    EvalRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING,
        started_at=timezone.now(),
        deadline_at=timezone.now() + dt.timedelta(minutes=10),
    )
    run.refresh_from_db()
    return run


def test_the_run_page_shows_when_the_deadline_falls_and_that_units_are_sent_again(
    rita: Any, make_suite: Any
) -> None:
    run = _running(rita, make_suite, Executor.CELERY, stored=0)
    page = verified_client(rita).get(f"/evals/{run.pk}/")
    html = page.content.decode()
    assert 'data-testid="progress-deadline"' in html and 'data-then="redispatch"' in html
    assert run.deadline_at is not None
    assert f'datetime="{run.deadline_at.isoformat()}"' in html
    assert "sent to the workers again, once" in html
    # The polled panel carries it too (the page's live part is replaced by it every 2 s).
    panel = verified_client(rita).get(f"/evals/{run.pk}/progress/").content.decode()
    assert 'data-then="redispatch"' in panel


def test_after_the_one_redispatch_or_in_process_the_page_says_the_run_will_end(
    rita: Any, make_suite: Any
) -> None:
    celery_run = _running(rita, make_suite, Executor.CELERY, stored=0)
    EvalRun.objects.filter(pk=celery_run.pk).update(redispatches=1)
    inline_run = _running(rita, make_suite, Executor.INLINE, stored=0)
    for run in (celery_run, inline_run):
        html = verified_client(rita).get(f"/evals/{run.pk}/").content.decode()
        assert 'data-then="end"' in html and "you can resume it" in html


def test_a_stored_trial_moves_the_shown_deadline_on(rita: Any, make_suite: Any) -> None:
    """The stored `deadline_at` lags progress (the watchdog moves it only when it looks): the
    page and the API show the deadline the watchdog will actually apply."""
    run = _running(rita, make_suite, Executor.CELERY, stored=1)
    stale = timezone.now() - dt.timedelta(minutes=1)
    EvalRun.objects.filter(pk=run.pk).update(deadline_at=stale)
    stored_at = timezone.now()
    TrialResult.objects.filter(run=run).update(created_at=stored_at)
    body = verified_client(rita, api=True).get(f"/api/v1/evals/runs/{run.pk}").json()
    shown = dt.datetime.fromisoformat(body["deadline"]["at"])
    assert shown == stored_at + dt.timedelta(seconds=settings.EVALS_RUN_STALL_SECONDS)


def test_the_run_api_gives_the_deadline_while_running_and_null_after(
    rita: Any, make_suite: Any
) -> None:
    run = _running(rita, make_suite, Executor.CELERY, stored=0)
    client = verified_client(rita, api=True)
    body = client.get(f"/api/v1/evals/runs/{run.pk}").json()
    assert run.deadline_at is not None
    assert body["deadline"] == {
        "at": run.deadline_at.isoformat().replace("+00:00", "Z"),
        "then": "redispatch",
    }
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    assert client.get(f"/api/v1/evals/runs/{run.pk}").json()["deadline"] is None
    html = verified_client(rita).get(f"/evals/{run.pk}/").content.decode()
    assert "progress-deadline" not in html


def test_the_schema_documents_the_deadline() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    deadline = components["RunDetailOut"]["properties"]["deadline"]
    ref = deadline.get("$ref") or next(
        (s.get("$ref") for s in deadline.get("allOf", []) + deadline.get("oneOf", [])), None
    )
    assert ref is not None and deadline.get("nullable") is True
    target = components[ref.rsplit("/", 1)[1]]
    assert set(target["required"]) == {"at", "then"}
    then = target["properties"]["then"]
    then_ref = then.get("$ref") or then["allOf"][0]["$ref"]
    assert components[then_ref.rsplit("/", 1)[1]]["enum"] == ["redispatch", "end"]
