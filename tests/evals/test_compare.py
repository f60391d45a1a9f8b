"""`golive compare` and the comparison page: per domain and per persona, pass^1 and pass^k of
both runs with paired-bootstrap bands, the difference marked when the bands do not overlap,
the cells that flipped with a trial of each run, cost and turns per trial — and no flat list
of every trial."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evals import services
from evals.comparison import _load, paired_row, run_comparison
from evals.models import EXCLUDED_OUTCOMES, EvalRun, RunStatus, TrialOutcome, TrialResult
from evals.services.gate import cell_rows
from evals.services.run_finalise import run_rows
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
    for run, trial in ((baseline, flip.a_trial), (candidate, flip.b_trial)):
        assert f'href="{reverse("evals:trial_detail", args=[run.pk, trial])}"' in html
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


def _cells_and_usage(c) -> tuple:
    return (c.shared, c.only_a, c.only_b, c.flips, c.flips_total, c.overall, c.usage)


def test_a_finished_runs_summary_gives_the_comparison_its_trial_rows_give(rita, make_suite) -> None:
    """The compare page reads a finished run's per-cell figures from its summary (written at
    finalise); a run still going is aggregated from its trial rows. Both give the same
    comparison, errors left out of n and c alike."""
    baseline = _run(rita, make_suite())
    candidate = _run(rita, make_suite(agent={"model": "sandbox/fault:skip_confirmation"}))
    cells = candidate.summary["cells"]
    assert len(cells) == c_len(candidate) and all(len(row) == 10 for row in cells)
    finished = run_comparison(run_a=baseline.pk, run_b=candidate.pk)
    assert finished.flips and finished.regressions
    # The same rows, aggregated live: the run is marked running, so its summary is not read
    # (were it read, the summary's cells would still say what they said above).
    EvalRun.objects.filter(pk__in=[baseline.pk, candidate.pk]).update(status=RunStatus.RUNNING)
    live = run_comparison(run_a=baseline.pk, run_b=candidate.pk)
    assert _cells_and_usage(live) == _cells_and_usage(finished)


def c_len(run) -> int:
    return (
        TrialResult.objects.filter(run=run)
        .exclude(outcome__in=EXCLUDED_OUTCOMES)
        .values("domain", "task_id", "persona")
        .distinct()
        .count()
    )


def test_the_summary_cells_leave_errors_out_as_the_trial_rows_do(rita, make_suite) -> None:
    run = _run(rita, make_suite(agent={"model": "sandbox/fault:skip_confirmation"}))
    # Two trials become infrastructure errors: one leaves its cell with one trial, the other
    # was its cell's first failing trial.
    rows = list(TrialResult.objects.filter(run=run).order_by("id"))
    failing = next(r for r in rows if r.reward < 1.0)
    passing = next(r for r in rows if r.reward >= 1.0)
    TrialResult.objects.filter(pk__in=[failing.pk, passing.pk]).update(
        outcome=TrialOutcome.INFRASTRUCTURE, infrastructure=True
    )
    from_rows = cell_rows(run_rows(run_id=run.pk))
    run.status = RunStatus.RUNNING  # read from the trial rows
    live = _load(run)
    run.status = RunStatus.COMPLETED
    run.summary = {**run.summary, "cells": from_rows}
    summarised = _load(run)
    assert summarised.cells == live.cells
    assert dict(summarised.usage) == dict(live.usage)
    key = (failing.domain, failing.task_id, failing.persona)
    assert summarised.cells[key].first_failing != failing.pk
    assert sum(c.n for c in summarised.cells.values()) == len(rows) - 2


def test_the_compare_page_of_two_finished_runs_reads_no_trial_row(rita, make_suite) -> None:
    baseline = _run(rita, make_suite())
    candidate = _run(rita, make_suite(agent={"model": "sandbox/fault:skip_confirmation"}))
    client = verified_client(rita)
    url = reverse("evals:compare") + f"?a={baseline.pk}&b={candidate.pk}"
    with CaptureQueriesContext(connection) as captured:
        page = client.get(url)
    assert page.status_code == 200 and 'data-testid="flip-b"' in page.content.decode()
    assert not [q for q in captured.captured_queries if "evals_trialresult" in q["sql"]]
