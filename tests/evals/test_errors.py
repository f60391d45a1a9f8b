"""Infrastructure and simulator errors: stored as their own outcomes, gated apart (each with
its threshold, exit 2 above it), and re-run by resume — in place, without duplicate or gap —
on the in-process and the Celery path. Resolved models are on every run and trial."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evals import services
from evals.engine.runner import TrialRecord, run_unit
from evals.models import EvalRun, RunStatus, TrialOutcome, TrialResult
from evals.services import runs as runs_module
from evals.services.store import trial_store
from evals.tasks import run_trial
from tests.evals.conftest import BROKEN_USER, SNAPSHOT, SNAPSHOT_AGENT, golive

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(monkeypatch) -> Iterator[list[str]]:
    """The keys of every record stored from now on (what was actually run)."""
    keys: list[str] = []
    real = runs_module.trial_store

    def spy(*, run_id: int, record: TrialRecord) -> bool:
        keys.append(record.key)
        return real(run_id=run_id, record=record)

    monkeypatch.setattr(runs_module, "trial_store", spy)
    yield keys


def _plant_errors(run: EvalRun, infra: int, simulator: int) -> dict[str, int]:
    """Turn finished rows (one per task and persona) into stored errors, as if those trials
    had hit them; returns {key: row id}."""
    rows, cells = [], set()
    for row in TrialResult.objects.filter(run=run).order_by("id"):
        if (row.task_id, row.persona) not in cells:  # keep a trial of every task evaluated
            cells.add((row.task_id, row.persona))
            rows.append(row)
    planted = {}
    for row in rows[:infra]:
        row.outcome, row.infrastructure, row.termination = (
            TrialOutcome.INFRASTRUCTURE,
            True,
            "infrastructure_error",
        )
        row.save()
        planted[row.key] = row.pk
    for row in rows[infra : infra + simulator]:
        row.outcome, row.termination = TrialOutcome.SIMULATOR, "simulator_error"
        row.save()
        planted[row.key] = row.pk
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    return planted


def test_a_simulator_error_is_its_own_outcome_and_not_an_infrastructure_error(
    suite_file,
) -> None:
    code, _, err = golive("run", "--suite", suite_file(user={"model": BROKEN_USER}))
    run = EvalRun.objects.get()
    assert set(TrialResult.objects.filter(run=run).values_list("outcome", flat=True)) == {
        TrialOutcome.SIMULATOR
    }
    assert not TrialResult.objects.filter(run=run, infrastructure=True).exists()
    assert run.summary["simulator_errors"] == 20 and run.summary["infrastructure_errors"] == 0
    assert run.summary["report"]["terminations"] == {"simulator_error": 20}
    assert code == 2 and run.status == RunStatus.ERROR
    assert "could not complete" in err and "user simulator" in err
    assert "\n" not in err.strip()


def test_too_many_infrastructure_errors_say_could_not_complete_in_the_one_line_reason(
    suite_file,
) -> None:
    from tests.evals.conftest import DOWN

    code, _, err = golive("run", "--suite", suite_file(agent={"model": DOWN}))
    assert code == 2
    assert "could not complete: 20 of 20 trials hit an infrastructure error" in err


@pytest.mark.parametrize(
    ("max_rate", "first_reason"),
    [(0.2, "cell(s) (domain/task/persona) have fewer than"), (0.05, "2 of 20 trials were spoiled")],
    ids=["under", "over"],
)
def test_the_simulator_error_rate_is_gated_by_its_own_threshold_and_short_cells_give_no_verdict(
    rita, make_suite, max_rate: float, first_reason: str
) -> None:
    gate = {
        "pass_hat_k_lower": 0.0,
        "pass_hat_1": 0.8,
        "max_infrastructure_error_rate": 0.0,
        "max_simulator_error_rate": max_rate,
    }
    run = services.eval_run_create(actor=rita, suite=make_suite(gate=gate))
    services.eval_run_execute(actor=rita, run_id=run.pk)
    _plant_errors(run, infra=0, simulator=2)  # 2 of 20 = 10 %
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    run = services.eval_run_finalise(run_id=run.pk)
    checks = {c["check"]: c for c in run.verdict_reasons}
    assert checks["simulator_error_rate"]["observed"] == pytest.approx(0.1)
    assert checks["infrastructure_error_rate"]["ok"]
    assert run.summary["report"]["evaluated"] == 18  # excluded from n and c
    assert checks["simulator_error_rate"]["ok"] is (max_rate == 0.2)
    # Under the rate or not, the two spoiled trials leave their cells short of k measured
    # trials: no verdict either way, and the reason says which.
    assert not checks["cells_measured"]["ok"]
    assert run.verdict == "error"
    assert run.error_message.startswith("could not complete: ")
    assert first_reason in run.error_message
    # Worded when shown: the failing check's code and values, not its English.
    assert run.error_key == "not_judged"
    assert run.error_params["check"]["code"] in ("simulator_errors", "cells_short")


def test_resume_reruns_exactly_the_stored_error_rows_in_place(
    rita, make_suite, stored: list[str]
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    services.eval_run_execute(actor=rita, run_id=run.pk)
    planted = _plant_errors(run, infra=3, simulator=2)
    stored.clear()

    code, out, _ = golive("run", "--resume", str(run.pk), "--as", "rita")

    assert code == 0, out
    assert "re-running 3 infrastructure and 2 simulator error(s)" in out
    assert sorted(stored) == sorted(planted)  # exactly those, nothing else
    rows = {t.key: t for t in TrialResult.objects.filter(run=run)}
    assert len(rows) == run.total_units == 20  # no duplicate, no gap
    for key, pk in planted.items():
        assert rows[key].pk == pk  # replaced in place
        assert rows[key].outcome == TrialOutcome.PASS
    run.refresh_from_db()
    assert run.verdict == "pass" and run.summary["infrastructure_errors"] == 0


def test_a_celery_resume_dispatches_only_the_error_rows_and_replaces_them(
    rita, make_suite, stored: list[str], django_capture_on_commit_callbacks
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(), executor="celery")
    with django_capture_on_commit_callbacks(execute=True):
        services.eval_run_execute(actor=rita, run_id=run.pk)
    planted = _plant_errors(run, infra=2, simulator=1)
    stored.clear()

    with django_capture_on_commit_callbacks(execute=True):
        services.eval_run_resume(actor=rita, run_id=run.pk)

    assert sorted(stored) == sorted(planted)
    assert TrialResult.objects.filter(run=run).count() == 20
    assert not TrialResult.objects.filter(run=run, outcome__in=["infrastructure", "simulator"])
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"


def test_a_redelivered_task_for_a_good_row_returns_without_running_the_trial(
    rita, make_suite, monkeypatch
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    unit = services.run_units(suite=services.run_suite(run=run))[0]
    run_trial(run.pk, run.suite_hash, unit.to_dict())
    row = TrialResult.objects.get(run=run)

    def must_not_run(*args: object) -> None:
        raise AssertionError("a finished unit was run again")

    monkeypatch.setattr(runs_module, "run_unit", must_not_run)
    assert run_trial(run.pk, run.suite_hash, unit.to_dict()) == unit.key
    assert list(TrialResult.objects.filter(run=run)) == [row]


def test_a_redelivered_task_for_an_error_row_runs_again_and_replaces_it(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    unit = services.run_units(suite=services.run_suite(run=run))[0]
    run_trial(run.pk, run.suite_hash, unit.to_dict())
    TrialResult.objects.filter(run=run).update(outcome=TrialOutcome.INFRASTRUCTURE)
    row = TrialResult.objects.get(run=run)

    run_trial(run.pk, run.suite_hash, unit.to_dict())

    again = TrialResult.objects.get(run=run)
    assert again.pk == row.pk and again.outcome == TrialOutcome.PASS


def test_a_late_error_never_replaces_a_good_row(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    spec = services.run_suite(run=run).specs()[0]
    unit = services.run_units(suite=services.run_suite(run=run))[0]
    good = run_unit(spec, unit)
    assert trial_store(run_id=run.pk, record=good) is True
    late = TrialRecord.from_dict(
        {**good.to_dict(), "termination": "infrastructure_error", "reward": 0.0}
    )
    assert trial_store(run_id=run.pk, record=late) is False
    assert TrialResult.objects.get(run=run).outcome == TrialOutcome.PASS


def test_resolved_models_are_stored_per_trial_and_on_the_run(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(agent={"model": SNAPSHOT_AGENT}))
    run = services.eval_run_execute(actor=rita, run_id=run.pk)
    assert set(TrialResult.objects.filter(run=run).values_list("agent_model", flat=True)) == {
        SNAPSHOT
    }
    assert run.agent_model == SNAPSHOT_AGENT and run.agent_model_resolved == SNAPSHOT
    assert run.user_model_resolved == "sandbox/scripted"

    code, out, _ = golive("show", str(run.pk))
    assert code == 0
    assert f"agent {SNAPSHOT_AGENT} (resolved {SNAPSHOT})" in out
    assert "errors: infrastructure 0 (0.0%, at most 0.0%), simulator 0" in out


def test_show_lists_trials_answered_by_another_model(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    services.eval_run_execute(actor=rita, run_id=run.pk)
    odd = TrialResult.objects.filter(run=run).first()
    assert odd is not None
    TrialResult.objects.filter(pk=odd.pk).update(agent_model="fallback-model")
    EvalRun.objects.filter(pk=run.pk).update(
        agent_model_resolved="fallback-model, sandbox/reference"
    )

    code, out, _ = golive("show", str(run.pk))

    assert code == 0
    assert f"trial {odd.key}: agent fallback-model" in out
    assert out.count("  trial ") == 1
