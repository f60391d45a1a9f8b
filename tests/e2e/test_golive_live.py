"""The run page while the run is going, in a real browser at 1400 px and 390 px: one live
panel whose counts agree with the stored rows and grow without a reload, the failures listed
as they are stored, no Resume button and no "pending" verdict; when the run finishes the page
turns into the report by itself.

The trials are stored from the test's thread, unit by unit, through the same service a
Celery worker calls (`trial_execute`), while the browser polls."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from evals import services
from evals.models import EvalRun, RunStatus, TrialOutcome, TrialResult
from evals.services.runs import run_units, trial_execute
from evals.services.suites import suite_from_mapping
from tests.evals.conftest import store_selftest, suite_dict

pytestmark = pytest.mark.django_db(transaction=True)


def _shot(page: Any, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    if os.environ.get("E2E_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/{name}.png", full_page=True)
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/{name}-top.png")


def _panel_agrees_with_the_rows(page: Any, run: EvalRun) -> None:
    rows = TrialResult.objects.filter(run=run)
    done = rows.count()
    page.wait_for_function(
        "done => document.querySelector('[data-testid=progress-done]').textContent"
        ".trim().startsWith(done + ' of ')",
        arg=done,
        timeout=15_000,
    )
    counts = {
        key: int(page.inner_text(f"[data-testid=progress-counts] [data-count={key}]"))
        for key in ("passed", "failed", "errors")
    }
    assert counts["passed"] == rows.filter(outcome=TrialOutcome.PASS).count()
    assert counts["failed"] == rows.filter(outcome=TrialOutcome.FAIL).count()
    assert sum(counts.values()) == done
    assert page.locator("[data-testid=progress]").count() == 1  # one panel, one count
    main = page.inner_text("main")
    assert "Resume" not in main and "pending" not in main
    assert f"{done} of {run.total_units}" in main


@pytest.mark.parametrize("width", [1400, 390])
def test_the_run_page_follows_a_running_run_and_becomes_the_report_when_it_ends(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Path
) -> None:
    store_selftest()
    suite = suite_from_mapping(
        suite_dict(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    )
    run = services.eval_run_create(actor=rita, suite=suite)
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    units = run_units(suite=suite)
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/evals/{run.pk}/")
    page.evaluate("() => { window.sameDocument = true; }")  # gone if the page reloads

    assert page.get_attribute("[data-testid=progress]", "data-status") == "running"
    # The live panel starts below the run's facts, apart (at 390 px it touched "Timing").
    facts = page.locator(".run-head dl").bounding_box()
    panel = page.locator("[data-testid=progress]").bounding_box()
    assert facts is not None and panel is not None
    assert panel["y"] >= facts["y"] + facts["height"] + 8
    _panel_agrees_with_the_rows(page, run)
    assert page.locator("[data-testid=failing]").count() == 0

    half = len(units) // 2
    for unit in units[:half]:
        trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    _panel_agrees_with_the_rows(page, run)
    failing = TrialResult.objects.filter(run=run).exclude(outcome=TrialOutcome.PASS)
    assert failing.exists()
    listed = page.locator("[data-testid=live-failing] a")
    assert listed.count() == failing.count()
    newest = failing.order_by("-id").first()
    assert newest is not None and listed.first.inner_text() == newest.key
    assert "No failing trial" not in page.inner_text("main")
    assert page.evaluate("() => window.sameDocument === true")
    _shot(page, tmp_path, f"run-live-{width}")
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    wide = page.evaluate(
        "() => [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right"
        " > window.innerWidth + 1).slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' +"
        " (e.getAttribute('data-testid') || '') + ' ' + e.textContent.slice(0, 40))"
    )
    assert widths[0] <= widths[1], wide

    for unit in units[half:]:
        trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    services.eval_run_finalise(run_id=run.pk)
    # The next poll sees a finished run and reloads the page: the verdict and the report.
    page.wait_for_selector("[data-verdict=fail]", timeout=15_000)
    assert page.locator("[data-testid=progress]").count() == 0
    assert page.locator("[data-testid=failing] a").count() == failing.count()
    _shot(page, tmp_path, f"run-finished-{width}")
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1]


def test_an_interrupted_run_offers_resume_with_the_stored_count(
    logged_in_page: Any, rita: Any
) -> None:
    suite = suite_from_mapping(suite_dict())
    run = services.eval_run_create(actor=rita, suite=suite)
    for unit in run_units(suite=suite)[:3]:
        trial_execute(run_id=run.pk, suite_hash=run.suite_hash, unit=unit)
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error_message="worker lost")
    page = logged_in_page(rita)
    page.goto(f"/evals/{run.pk}/")
    card = page.inner_text("[data-testid=interrupted]")
    assert "worker lost" in card and f"3 of {run.total_units} trials are stored" in card
    assert page.locator("[data-testid=interrupted] button").inner_text() == "Resume run"
    assert page.locator("[data-testid=progress]").count() == 0
