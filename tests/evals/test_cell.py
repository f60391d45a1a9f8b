"""The cell page: every trial of one task and persona, for those who may read reports."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals import services
from evals.models import TrialResult
from tests.conftest import verified_client

pytestmark = pytest.mark.django_db


def test_the_cell_page_lists_only_the_trials_of_that_task_and_persona(
    rita, alice, make_suite
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite(trials=3))
    run = services.eval_run_execute(actor=rita, run_id=run.pk)
    trial = TrialResult.objects.filter(run=run).order_by("id").first()
    assert trial is not None
    url = reverse("evals:trial_cell", args=[run.pk, trial.pk])
    html = verified_client(rita).get(url).content.decode()
    assert html.count('data-testid="cell-trial"') == 3
    others = TrialResult.objects.filter(run=run).exclude(task_id=trial.task_id)
    assert others.exists()
    for other in others:
        assert reverse("evals:trial_detail", args=[run.pk, other.pk]) not in html
    assert verified_client(alice).get(url).status_code == 404  # an agent operator
    assert (
        verified_client(rita)
        .get(reverse("evals:trial_cell", args=[run.pk + 1, trial.pk]))
        .status_code
        == 404
    )  # a trial is found only under its own run
