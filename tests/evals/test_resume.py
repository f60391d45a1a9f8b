"""A run interrupted part-way (a crash, ^C, a killed worker) completes on resume with every
unit stored exactly once: no duplicate, no gap."""

from __future__ import annotations

from collections import Counter

import pytest

from evals import services
from evals.models import EvalRun, RunStatus, TrialResult
from evals.tasks import run_trial
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db


class Crash(Exception):
    pass


def _keys(run: EvalRun) -> list[str]:
    return [t.key for t in TrialResult.objects.filter(run=run)]


def test_a_crash_half_way_leaves_a_resumable_run_that_resume_completes(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())

    def crash_after_half(progress: services.Progress) -> None:
        if progress.done == 10:
            raise Crash("the machine lost power")

    with pytest.raises(Crash):
        services.eval_run_execute(actor=rita, run_id=run.pk, on_progress=crash_after_half)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "Crash" in run.error_message
    assert TrialResult.objects.filter(run=run).count() == 10

    code, out, _ = golive("run", "--resume", str(run.pk), "--as", "rita")

    assert code == 0, out
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"
    keys = _keys(run)
    planned = {u.key for u in services.run_units(services.run_suite(run))}
    assert len(keys) == len(planned) == 20  # no duplicate
    assert set(keys) == planned  # no gap
    assert "10 of 20 trials done" in out


def test_a_run_left_running_by_a_killed_process_resumes_without_repeating_stored_units(
    rita, make_suite
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    units = services.run_units(services.run_suite(run))
    for unit in units[::2]:  # every other unit finished before the kill
        services.trial_execute(run.pk, run.suite_hash, unit)
    first_ids = set(TrialResult.objects.filter(run=run).values_list("pk", flat=True))

    services.eval_run_resume(actor=rita, run_id=run.pk)

    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED
    assert Counter(_keys(run)) == Counter({u.key: 1 for u in units})
    # The stored rows were kept, not re-run.
    assert first_ids <= set(TrialResult.objects.filter(run=run).values_list("pk", flat=True))


def test_a_redelivered_trial_task_finds_its_row_and_stores_nothing_more(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    unit = services.run_units(services.run_suite(run))[0]
    run_trial(run.pk, run.suite_hash, unit.to_dict())
    row = TrialResult.objects.get(run=run)
    run_trial(run.pk, run.suite_hash, unit.to_dict())
    assert list(TrialResult.objects.filter(run=run)) == [row]


def test_finalising_with_a_gap_marks_the_run_failed_not_completed(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    for unit in services.run_units(services.run_suite(run))[:5]:
        services.trial_execute(run.pk, run.suite_hash, unit)
    run = services.eval_run_finalise(run_id=run.pk)
    assert run.status == RunStatus.FAILED and run.verdict == ""
    assert "15 of 20 trials are missing" in run.error_message


def test_a_completed_run_cannot_be_resumed(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    services.eval_run_execute(actor=rita, run_id=run.pk)
    code, _, err = golive("run", "--resume", str(run.pk), "--as", "rita")
    assert code == 2 and "nothing to run" in err
