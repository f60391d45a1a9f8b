"""The run page's live panel: counts from the stored rows, no Resume while a run is queued
or running, and the page told to reload once the run has finished."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals import services
from evals.models import EvalRun, RunStatus
from evals.services.runs import run_units, trial_execute
from tests.conftest import verified_client

pytestmark = pytest.mark.django_db


def test_a_running_run_shows_one_live_panel_and_no_resume(rita, make_suite) -> None:
    suite = make_suite(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    run = services.eval_run_create(actor=rita, suite=suite)
    for unit in run_units(suite=suite)[:4]:
        trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    client = verified_client(rita)
    for status in (RunStatus.QUEUED, RunStatus.RUNNING):
        EvalRun.objects.filter(pk=run.pk).update(status=status)
        html = client.get(reverse("evals:run_detail", args=[run.pk])).content.decode()
        assert html.count('data-testid="progress"') == 1
        assert f"4 of {run.total_units} trials stored" in html
        assert "Resume run" not in html and ">pending<" not in html
        assert html.count('data-testid="live-failing"') == 1
        assert 'data-testid="failing"' not in html  # the static list waits for the end
        assert 'hx-trigger="every 2s"' in html


def test_the_panel_asks_for_a_reload_only_once_the_run_has_finished(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    client = verified_client(rita)
    url = reverse("evals:run_progress", args=[run.pk])
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    assert "HX-Refresh" not in client.get(url, HTTP_HX_REQUEST="true")
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.COMPLETED)
    response = client.get(url, HTTP_HX_REQUEST="true")
    assert response["HX-Refresh"] == "true"
    assert "hx-trigger" not in response.content.decode()  # polling stops
