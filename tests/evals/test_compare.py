"""`golive compare` and the comparison page: paired per-task differences, regressions first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals import selectors, services
from tests.conftest import verified_client
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db


def _run(actor, suite):
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def test_a_planted_regression_is_listed_first(rita, make_suite) -> None:
    baseline = _run(rita, make_suite())
    # The candidate never acts; it is run on one persona only, so the comparison must pair
    # those cells, rank every one of them as a regression and list the rest as unpaired.
    candidate = _run(
        rita, make_suite(agent={"model": "sandbox/fault:do_nothing"}, personas=["impatient"])
    )
    comparison = selectors.run_compare(run_a=baseline.pk, run_b=candidate.pk)
    assert comparison.regressions, "the planted regression must show"
    assert comparison.cells[0].delta < 0
    assert all(c.persona == "impatient" for c in comparison.cells)
    assert all(k.endswith("/baseline") for k in comparison.only_a)

    code, out, _ = golive("compare", str(baseline.pk), str(candidate.pk))
    assert code == 0
    lines = out.splitlines()
    assert f"{len(comparison.regressions)} regression(s)" in lines[0]
    assert lines[1].strip().startswith("REGRESSION")

    page = verified_client(rita).get(
        reverse("evals:compare") + f"?a={baseline.pk}&b={candidate.pk}"
    )
    html = page.content.decode()
    assert page.status_code == 200
    assert f"{len(comparison.regressions)} regression(s)" in html
    assert html.index('class="regression"') < html.index(
        "</tbody>", html.index('data-testid="paired"')
    )


def test_comparing_a_run_with_itself_shows_no_change(rita, make_suite) -> None:
    run = _run(rita, make_suite())
    comparison = selectors.run_compare(run_a=run.pk, run_b=run.pk)
    assert not comparison.regressions and not comparison.improvements
    assert comparison.mean_delta == 0
