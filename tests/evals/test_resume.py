"""A run interrupted part-way (a crash, ^C, a killed worker) completes on resume with every
unit stored exactly once: no duplicate, no gap."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from backoffice.errors import Conflict
from evals import services
from evals.engine.errors import EngineError
from evals.engine.runner import agent_seed
from evals.engine.runner import spec as spec_module
from evals.models import EvalRun, RunStatus, TrialResult
from evals.services import runs as runs_module
from evals.tasks import run_trial
from identity.models import AuditEvent
from tests.conftest import verified_client
from tests.evals.conftest import golive
from tests.evals_engine.seed_spy import SEED_SPY

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
    planned = {u.key for u in services.run_units(suite=services.run_suite(run=run))}
    assert len(keys) == len(planned) == 20  # no duplicate
    assert set(keys) == planned  # no gap
    assert "10 of 20 trials done" in out


def test_a_run_left_running_by_a_killed_process_resumes_without_repeating_stored_units(
    rita, make_suite
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    units = services.run_units(suite=services.run_suite(run=run))
    for unit in units[::2]:  # every other unit finished before the kill
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    first_ids = set(TrialResult.objects.filter(run=run).values_list("pk", flat=True))

    services.eval_run_resume(actor=rita, run_id=run.pk)

    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED
    assert Counter(_keys(run)) == Counter({u.key: 1 for u in units})
    # The stored rows were kept, not re-run.
    assert first_ids <= set(TrialResult.objects.filter(run=run).values_list("pk", flat=True))


def test_a_redelivered_trial_task_finds_its_row_and_stores_nothing_more(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    unit = services.run_units(suite=services.run_suite(run=run))[0]
    run_trial(run.pk, run.suite_hash, unit.to_dict())
    row = TrialResult.objects.get(run=run)
    run_trial(run.pk, run.suite_hash, unit.to_dict())
    assert list(TrialResult.objects.filter(run=run)) == [row]


def test_finalising_with_a_gap_marks_the_run_failed_not_completed(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    for unit in services.run_units(suite=services.run_suite(run=run))[:5]:
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    run = services.eval_run_finalise(run_id=run.pk)
    assert run.status == RunStatus.FAILED and run.verdict == ""
    assert "15 of 20 trials are missing" in run.error_message


def test_a_completed_run_cannot_be_resumed(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    services.eval_run_execute(actor=rita, run_id=run.pk)
    code, _, err = golive("run", "--resume", str(run.pk), "--as", "rita")
    assert code == 2 and "nothing to run" in err


# -- a resume measures what the run measured so far, or is refused -----------------------


def _interrupted(rita, suite, *, after: int = 10) -> EvalRun:
    run = services.eval_run_create(actor=rita, suite=suite)

    def crash(progress: services.Progress) -> None:
        if progress.done == after:
            raise Crash("the machine lost power")

    with pytest.raises(Crash):
        services.eval_run_execute(actor=rita, run_id=run.pk, on_progress=crash)
    return run


def test_resuming_with_another_agent_is_refused_naming_both(rita, make_suite) -> None:
    run = _interrupted(rita, make_suite())
    other = services.suite_override(
        suite=services.run_suite(run=run), agent="sandbox/fault:do_nothing"
    )

    with pytest.raises(Conflict) as refused:
        services.eval_run_resume(actor=rita, run_id=run.pk, suite=other)

    assert refused.value.message == (
        f"Run #{run.pk} holds trials of agent sandbox/reference, this resume's agent is "
        "sandbox/fault:do_nothing: start a new run instead."
    )
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert TrialResult.objects.filter(run=run).count() == 10
    assert not AuditEvent.objects.filter(action="evals.run.resume").exists()


def test_resuming_under_other_code_is_refused_naming_the_code_version(
    rita, make_suite, monkeypatch
) -> None:
    run = _interrupted(rita, make_suite())
    monkeypatch.setattr(spec_module, "source_digest", lambda: "c0de" * 16)

    with pytest.raises(Conflict, match=r"holds trials of code version \w{12}, this resume's code"):
        services.eval_run_resume(actor=rita, run_id=run.pk)


def test_a_run_created_before_fingerprints_cannot_be_resumed(rita, make_suite) -> None:
    run = _interrupted(rita, make_suite())
    EvalRun.objects.filter(pk=run.pk).update(fingerprint="", fingerprint_fields={})
    with pytest.raises(Conflict, match="predates run fingerprints"):
        services.eval_run_resume(actor=rita, run_id=run.pk)


def test_rows_of_another_fingerprint_refuse_the_resume(rita, make_suite) -> None:
    run = _interrupted(rita, make_suite())
    TrialResult.objects.filter(run=run).update(fingerprint="f" * 64)
    with pytest.raises(Conflict, match="another fingerprint \\(ffffffffffff\\)"):
        services.eval_run_resume(actor=rita, run_id=run.pk)


def test_every_trial_row_carries_the_runs_fingerprint(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    services.eval_run_execute(actor=rita, run_id=run.pk)
    spec = services.run_suite(run=run).specs()[0]
    assert set(TrialResult.objects.filter(run=run).values_list("fingerprint", flat=True)) == {
        spec.fingerprint()
    }
    assert run.fingerprint_fields == {"retail": spec.fingerprint_fields()}


def _spy_seeds(run: EvalRun) -> dict[str, int]:
    return {
        t.key: int(t.agent_model.removeprefix("spy-")) for t in TrialResult.objects.filter(run=run)
    }


def test_agents_get_the_runs_opaque_seeds_before_and_after_a_resume(rita, make_suite) -> None:
    run = _interrupted(rita, make_suite(agent={"model": SEED_SPY}))
    before = _spy_seeds(run)

    services.eval_run_resume(actor=rita, run_id=run.pk)

    run.refresh_from_db()
    key = bytes.fromhex(run.agent_seed_key)
    units = services.run_units(suite=services.run_suite(run=run))
    assert _spy_seeds(run) == {u.key: agent_seed(key, u.seed) for u in units}
    assert before.items() <= _spy_seeds(run).items()


def test_a_celery_trial_gets_the_seed_from_the_runs_key(rita, make_suite) -> None:
    # A worker caches a run's inputs by (id, suite hash); the test database rolls back and
    # hands an earlier test's run id out again, which a real database never does.
    runs_module._cached_inputs.cache_clear()
    run = services.eval_run_create(actor=rita, suite=make_suite(agent={"model": SEED_SPY}))
    unit = services.run_units(suite=services.run_suite(run=run))[0]
    run_trial(run.pk, run.suite_hash, unit.to_dict())
    key = bytes.fromhex(EvalRun.objects.get(pk=run.pk).agent_seed_key)
    assert _spy_seeds(run) == {unit.key: agent_seed(key, unit.seed)}


def test_a_worker_with_other_code_stops_the_run_instead_of_storing_its_trial(
    rita, make_suite, monkeypatch
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    unit = services.run_units(suite=services.run_suite(run=run))[0]
    monkeypatch.setattr(spec_module, "source_digest", lambda: "c0de" * 16)

    with pytest.raises(EngineError, match="code or settings differ"):
        services.trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)

    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "fingerprint for retail" in run.error_message
    assert not TrialResult.objects.filter(run=run).exists()


def test_the_agent_seed_key_is_in_no_trial_row_audit_event_or_api_answer(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    services.eval_run_execute(actor=rita, run_id=run.pk)
    run.refresh_from_db()
    key = run.agent_seed_key
    assert len(bytes.fromhex(key)) == 32
    rows = list(TrialResult.objects.filter(run=run).values())
    events = list(AuditEvent.objects.filter(target_id=str(run.pk)).values())
    detail = verified_client(rita, api=True).get(f"/api/v1/evals/runs/{run.pk}").json()
    for where in (rows, events, detail):
        assert key not in json.dumps(where, default=str)
    assert detail["fingerprint"] == run.fingerprint
