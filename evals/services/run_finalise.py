"""The end of a run: its stored rows summarised and the gate judged (the chord callback, or the
end of an in-process run); a run with a unit missing becomes resumable instead."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from evals.models import EvalRun, RunStatus, TrialResult
from evals.run_words import error_english
from evals.services.gate import ROW_FIELDS, Row, gate_evaluate, summarise_rows
from evals.services.run_plan import run_suite, run_units
from evals.services.selftest import selftest_evidence
from identity.audit import audit_record


def run_rows(*, run_id: int) -> list[Row]:
    return [
        Row(*values)
        for values in TrialResult.objects.filter(run_id=run_id).values_list(*ROW_FIELDS)
    ]


def eval_run_finalise(*, run_id: int) -> EvalRun:
    """Summarise the stored rows and judge the gate (the chord callback, or the end of an
    in-process run). Idempotent: a re-delivered callback finds the run completed."""
    with transaction.atomic():
        run = EvalRun.objects.select_for_update().get(pk=run_id)
        if run.status in (RunStatus.COMPLETED, RunStatus.ERROR):
            return run
        suite = run_suite(run=run)
        rows = run_rows(run_id=run.pk)
        expected = {u.key for u in run_units(suite=suite)}
        stored = {r.key for r in rows}
        missing = expected - stored
        now = timezone.now()
        if missing:
            run.status = RunStatus.FAILED
            run.error_key = "missing"
            run.error_params = {"missing": len(missing), "expected": len(expected)}
            run.error_message = error_english(run.error_key, run.error_params)
            run.finished_at = now
            run.save(
                update_fields=[
                    "status",
                    "error_message",
                    "error_key",
                    "error_params",
                    "finished_at",
                ]
            )
            audit_record(
                actor=None,
                action="evals.run.interrupt",
                target=run,
                after={"missing": len(missing)},
            )
            return run
        report, extra = summarise_rows(rows, suite)
        extra["selftest"] = selftest_evidence(domains=suite.domains, code_version=run.code_version)
        verdict, checks = gate_evaluate(suite, report, extra)
        run.summary = extra
        run.verdict = verdict
        run.verdict_reasons = [c.to_dict() for c in checks]
        run.status = RunStatus.ERROR if verdict == "error" else RunStatus.COMPLETED
        if verdict == "error":
            failing = next(c for c in checks if not c.ok).to_dict()
            run.error_key = "not_judged"
            run.error_params = {"check": {k: failing[k] for k in ("code", "params", "message")}}
            run.error_message = error_english(run.error_key, run.error_params)
        run.finished_at = now
        apply_models_and_usage(run, extra)
        run.save()
        audit_record(
            actor=None,
            action="evals.run.finish",
            target=run,
            after={
                "status": run.status,
                "verdict": verdict,
                "failed_checks": [c.check for c in checks if not c.ok],
                "trials": len(rows),
            },
        )
    return run


def apply_models_and_usage(run: EvalRun, extra: dict[str, Any]) -> None:
    """Copy a run summary's resolved models and token/cost totals onto the run's own columns
    (unsaved): a finished run and an imported one fill them the same way."""
    models = extra["models"]
    run.agent_model_resolved = ", ".join(models["agent"])[:500]
    run.user_model_resolved = ", ".join(models["user"])[:500]
    usage = extra["usage"]
    run.agent_tokens_in = usage["agent"]["tokens_in"]
    run.agent_tokens_out = usage["agent"]["tokens_out"]
    run.agent_cost_micros = usage["agent"]["cost_micros"]
    run.user_tokens_in = usage["user"]["tokens_in"]
    run.user_tokens_out = usage["user"]["tokens_out"]
    run.user_cost_micros = usage["user"]["cost_micros"]
