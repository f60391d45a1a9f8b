"""The trials behind a figure: filters narrow, the transcript search finds only the trials
whose conversation holds the words, and the page is 404 for those who may not read runs."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals import selectors, services
from evals.models import TrialOutcome, TrialResult
from tests.conftest import verified_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(rita, make_suite):
    suite = make_suite(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    created = services.eval_run_create(actor=rita, suite=suite)
    return services.eval_run_execute(actor=rita, run_id=created.pk)


def test_filters_narrow_to_the_trials_that_match_every_one(run) -> None:
    everything = TrialResult.objects.filter(run=run)
    found = selectors.run_trial_search(
        run_id=run.pk,
        filters=selectors.TrialFilters(persona="impatient", outcome=TrialOutcome.FAIL),
    )
    expected = everything.filter(persona="impatient", outcome=TrialOutcome.FAIL)
    assert 0 < found.count() == expected.count() < everything.count()
    assert (
        selectors.run_trial_search(
            run_id=run.pk, filters=selectors.TrialFilters(failure="no_such_class")
        ).count()
        == 0
    )


def test_the_transcript_search_is_case_insensitive_and_matches_tool_results(run) -> None:
    # "LUCAS_JOHNSON_8273" is a customer id only a tool's result gives.
    found = selectors.run_trial_search(
        run_id=run.pk, filters=selectors.TrialFilters(q="LUCAS_JOHNSON_8273")
    )
    holding = [
        t.pk
        for t in TrialResult.objects.filter(run=run)
        if "lucas_johnson_8273" in str(t.trajectory)
    ]
    assert 0 < len(holding) < TrialResult.objects.filter(run=run).count()
    assert sorted(found.values_list("pk", flat=True)) == sorted(holding)


def test_the_list_page_is_for_report_readers_only(run, rita, alice) -> None:
    url = reverse("evals:run_trial_list", args=[run.pk])
    response = verified_client(rita).get(url, {"outcome": "fail", "q": "<script>"})
    assert response.status_code == 200 and "<script>" not in response.content.decode()
    assert verified_client(alice).get(url).status_code == 404


def test_each_filter_offers_each_value_once(rita, make_suite) -> None:
    """The model's default ordering joined the DISTINCT: one option per trial."""
    from evals import selectors, services

    run = services.eval_run_create(
        actor=rita, suite=make_suite(agent={"model": "sandbox/fault:skip_confirmation"})
    )
    run = services.eval_run_execute(actor=rita, run_id=run.pk)
    facets = selectors.run_trial_facets(run_id=run.pk)
    assert facets["persona"] == ["baseline", "impatient"]
    assert facets["domain"] == ["retail"]
    assert len(facets["failure_class"]) == len(set(facets["failure_class"])) >= 1
