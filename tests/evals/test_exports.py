"""Exports: a run's trials as JSON lines with τ²-bench's field names where the concept is the
same, and `golive show --format md` for a CI comment."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from evals import services
from evals.models import TrialResult
from tests.conftest import verified_client
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db

TAU2_FIELDS = {
    "id",
    "task_id",
    "trial",
    "seed",
    "timestamp",
    "duration",
    "termination_reason",
    "agent_cost",
    "user_cost",
    "messages",
    "reward_info",
}


def _run(actor, suite):
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def test_every_trial_is_one_line_with_tau2_field_names(rita, make_suite, audrey, alice) -> None:
    run = _run(rita, make_suite(agent={"model": "sandbox/fault:skip_confirmation"}))
    response = verified_client(rita).get(reverse("evals:run_export", args=[run.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="golive-run-{run.pk}.jsonl"'
    lines = b"".join(response.streaming_content).decode().splitlines()  # type: ignore[attr-defined]
    trials = TrialResult.objects.filter(run=run)
    assert len(lines) == trials.count()
    records = [json.loads(line) for line in lines]
    for record in records:
        assert set(record) >= TAU2_FIELDS
        row = trials.get(
            task_id=record["task_id"], persona=record["persona"], trial=record["trial"]
        )
        assert record["reward_info"]["reward"] == row.reward
        assert record["termination_reason"] == row.termination
        assert record["messages"] == (row.trajectory or {})["messages"]
        assert record["outcome"] == row.outcome and record["failure_class"] == row.failure_class
    assert {r["outcome"] for r in records} >= {"pass", "fail"}
    # Readers of runs may download; others do not learn the run exists.
    assert (
        verified_client(audrey).get(reverse("evals:run_export", args=[run.pk])).status_code == 200
    )
    assert verified_client(alice).get(reverse("evals:run_export", args=[run.pk])).status_code == 404


def test_show_format_md_is_a_ci_comment(rita, make_suite) -> None:
    run = _run(rita, make_suite(agent={"model": "sandbox/fault:skip_confirmation"}))
    code, out, _ = golive("show", str(run.pk), "--format", "md")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"### Go-live run #{run.pk} · t: **FAIL**"
    assert "| | pass^1 | pass^2 |" in lines
    assert any(line.startswith("| retail | ") for line in lines)
    failing = [c for c in run.verdict_reasons if not c["ok"]]
    assert failing and all(f"| ❌ | {c['check']} |" in out for c in failing)
    # Failing checks come before the passing ones.
    assert out.index("❌") < out.index("✅")
    assert "Weakest cells: retail x " in out
    assert f"/evals/{run.pk}/" in lines[2]
