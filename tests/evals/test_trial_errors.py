"""Error trials (infrastructure or simulator) are not the agent's failure: no ticket for
them, and re-running them is offered on a finished run only, keeping its verdict whenever
the re-run is refused."""

from __future__ import annotations

import pytest
from django.urls import reverse

from backoffice.errors import Conflict, Forbidden, ValidationFailed
from evals import services
from evals.models import EvalRun, RunStatus, TrialOutcome, TrialResult
from identity.models import AuditEvent
from tests.conftest import verified_client
from tests.evals.conftest import DOWN

pytestmark = pytest.mark.django_db


@pytest.fixture
def errored_run(rita, make_suite) -> EvalRun:
    """Every trial an infrastructure error: the provider was down for the whole run."""
    run = services.eval_run_create(actor=rita, suite=make_suite(agent={"model": DOWN}))
    return services.eval_run_execute(actor=rita, run_id=run.pk)


def test_an_error_trial_cannot_become_a_ticket(rita, errored_run) -> None:
    trial = TrialResult.objects.filter(run=errored_run).first()
    assert trial is not None and trial.outcome == TrialOutcome.INFRASTRUCTURE
    with pytest.raises(ValidationFailed, match="re-run it"):
        services.eval_trial_ticket_create(actor=rita, trial_id=trial.pk)
    response = verified_client(rita).post(
        reverse("evals:trial_ticket", args=[errored_run.pk, trial.pk])
    )
    assert response.status_code == 302
    trial.refresh_from_db()
    assert trial.ticket_id is None


def test_the_error_trial_page_names_the_error_and_offers_no_ticket(rita, errored_run) -> None:
    trial = TrialResult.objects.filter(run=errored_run).first()
    assert trial is not None
    html = (
        verified_client(rita)
        .get(reverse("evals:trial_detail", args=[errored_run.pk, trial.pk]))
        .content.decode()
    )
    assert "503 from the provider after retries" in html
    assert 'data-testid="rerun"' in html
    assert 'data-testid="create-ticket"' not in html
    assert "equals the gold replay" not in html


def test_an_auditor_sees_the_error_but_no_rerun(audrey, errored_run) -> None:
    trial = TrialResult.objects.filter(run=errored_run).first()
    assert trial is not None
    client = verified_client(audrey)
    html = client.get(reverse("evals:trial_detail", args=[errored_run.pk, trial.pk])).content
    assert b'data-testid="rerun"' not in html
    assert client.post(reverse("evals:run_rerun_errors", args=[errored_run.pk])).status_code == 404
    with pytest.raises(Forbidden):
        services.eval_run_rerun_errors(actor=audrey, run_id=errored_run.pk)


def test_a_run_without_error_trials_or_still_running_is_not_rerun(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    run = services.eval_run_execute(actor=rita, run_id=run.pk)
    with pytest.raises(Conflict, match="no error trial"):
        services.eval_run_rerun_errors(actor=rita, run_id=run.pk)
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    with pytest.raises(Conflict, match="only a finished run"):
        services.eval_run_rerun_errors(actor=rita, run_id=run.pk)


def test_a_refused_rerun_leaves_the_verdict_as_it_was(rita, errored_run, monkeypatch) -> None:
    from evals.services import runs

    monkeypatch.setattr(runs, "resume_refusal", lambda *, run, suite: "the code measures more")
    with pytest.raises(Conflict, match="the code measures more"):
        services.eval_run_rerun_errors(actor=rita, run_id=errored_run.pk)
    run = EvalRun.objects.get(pk=errored_run.pk)
    assert run.status == RunStatus.ERROR and run.verdict == "error" and run.verdict_reasons
    assert run.summary == errored_run.summary
    assert not AuditEvent.objects.filter(action="evals.run.rerun_errors").exists()
