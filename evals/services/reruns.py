"""Re-run the error trials of a finished run: the provider is back, the key was fixed, the
simulator was repaired. Infrastructure and simulator errors are not the agent's outcome and
are left out of pass^k; re-running them and judging the run again is what resume does for an
interrupted run, offered here for a run that finished with them."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from backoffice.errors import Conflict, NotFound
from evals import access
from evals.models import ERROR_OUTCOMES, EvalRun, RunStatus, TrialResult, Verdict
from evals.run_words import error_english
from evals.services.run_background import eval_run_resume_background
from identity.audit import audit_record
from identity.models import Operator


def eval_run_rerun_errors(*, actor: Operator, run_id: int) -> EvalRun:
    """Put a finished run's error trials back to work: the run becomes resumable (its old
    verdict is recorded in the audit event and cleared, since it was judged without them),
    then resumes in the background, which re-runs exactly the error rows, replaces them in
    place and judges the run again. One transaction: when the resume is refused (the code
    installed now measures something else) the run keeps its verdict, untouched."""
    access.ensure_start(actor)
    with transaction.atomic():
        run = EvalRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            raise NotFound(_("No such run."))
        if run.status not in (RunStatus.COMPLETED, RunStatus.ERROR):
            raise Conflict(
                _("Run #%(id)s is %(status)s: only a finished run's error trials are re-run.")
                % {"id": run.pk, "status": run.get_status_display().lower()}
            )
        errors = TrialResult.objects.filter(run_id=run.pk, outcome__in=ERROR_OUTCOMES).count()
        if not errors:
            raise Conflict(_("Run #%(id)s has no error trial to re-run.") % {"id": run.pk})
        before = {"status": run.status, "verdict": run.verdict, "errors": errors}
        run.status = RunStatus.FAILED
        run.verdict = Verdict.PENDING
        run.verdict_reasons = []
        run.summary = {}
        run.error_key, run.error_params = "rerun", {"n": errors}
        run.error_message = error_english(run.error_key, run.error_params)
        run.save(
            update_fields=[
                *("status", "verdict", "verdict_reasons", "summary"),
                *("error_message", "error_key", "error_params"),
            ]
        )
        audit_record(
            actor=actor,
            action="evals.run.rerun_errors",
            target=run,
            before=before,
            after={"status": run.status, "errors": errors},
        )
        return eval_run_resume_background(actor=actor, run_id=run.pk)
