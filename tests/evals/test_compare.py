"""`golive compare` and the comparison page: per domain and per persona, pass^1 and pass^k of
both runs with paired-bootstrap bands, the difference marked when the bands do not overlap,
the cells that flipped with a trial of each run, cost and turns per trial — and no flat list
of every trial."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals import services
from evals.comparison import paired_row, run_comparison
from evals.models import TrialResult
from tests.conftest import verified_client
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db


def _run(actor, suite):
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def test_a_planted_regression_is_marked_and_its_cells_flip(rita, make_suite) -> None:
    baseline = _run(rita, make_suite())
    # The candidate never acts; it is run on one persona only, so the comparison must pair
    # those cells, flip every one of them and leave the rest unpaired.
    candidate = _run(
        rita, make_suite(agent={"model": "sandbox/fault:do_nothing"}, personas=["impatient"])
    )
    c = run_comparison(run_a=baseline.pk, run_b=candidate.pk)
    assert c.only_a == c.shared > 0 and c.only_b == 0
    assert [r.label for r in c.by_persona] == ["impatient", "impatient"]  # k = 1 and 2
    impatient = {r.k: r for r in c.by_persona}
    assert impatient[1].a.value > 0.5 and impatient[1].b.value == 0.0
    assert impatient[1].worse and impatient[2].worse
    passing_in_a = TrialResult.objects.filter(run=baseline, persona="impatient")
    assert c.regressions == len(c.flips) > 0 and c.fixes == 0
    flip = c.flips[0]
    assert flip.regression and flip.b_rate == 0.0
    # Each side links to a trial of that run and that cell; B's is a failing one.
    assert flip.a_trial is not None and flip.b_trial is not None
    a_trial = passing_in_a.get(pk=flip.a_trial)
    b_trial = TrialResult.objects.get(pk=flip.b_trial, run=candidate)
    assert (a_trial.task_id, b_trial.task_id) == (flip.task_id, flip.task_id)
    assert b_trial.reward < 1.0

    code, out, _ = golive("compare", str(baseline.pk), str(candidate.pk))
    assert code == 0
    assert f"{c.regressions} pass → fail" in out.splitlines()[0]
    assert "WORSE" in out and "REGRESSION" in out

    page = verified_client(rita).get(
        reverse("evals:compare") + f"?a={baseline.pk}&b={candidate.pk}"
    )
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-separated="true"' in html
    assert f"/evals/{candidate.pk}/trials/{flip.b_trial}/" in html
    # No flat table: the page links only to the flipped cells' trials.
    assert html.count(f"/evals/{candidate.pk}/trials/") == len(c.flips)


def test_comparing_a_run_with_itself_shows_no_change(rita, make_suite) -> None:
    run = _run(rita, make_suite())
    c = run_comparison(run_a=run.pk, run_b=run.pk)
    assert not c.flips and c.regressions == c.fixes == 0
    assert all(r.delta == 0 and not r.separated for r in c.overall + c.by_domain + c.by_persona)


def test_the_bootstrap_is_paired() -> None:
    """Two runs that differ by one failing cell in 40: independent bands would overlap
    widely; the paired difference's band is all below zero, as every resample keeps the
    same customers on both sides."""
    pairs = [((2, 2), (2, 2))] * 39 + [((2, 2), (2, 0))]
    row = paired_row("x", pairs, 1, seed=1)
    assert row is not None
    assert row.delta == pytest.approx(-1 / 40)
    assert row.delta_high <= 0.0 and row.delta_low < 0.0
    assert not row.separated  # the bands themselves overlap: not marked


def test_many_cells_use_the_paired_t_interval_with_the_same_meaning() -> None:
    pairs = [((1, 1), (1, 1))] * 300 + [((1, 1), (1, 0))] * 200  # above BOOTSTRAP_MAX_CELLS
    row = paired_row("x", pairs, 1, seed=1)
    assert row is not None and row.worse
    assert row.a.low == row.a.high == 1.0
    assert row.b.high < 1.0 and row.delta_high < 0
