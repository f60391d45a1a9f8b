"""Go-live report pages in a real browser, on a run executed for real (the retail smoke
split, seconds): the release manager reads the verdict and charts, opens a failing trial,
sends it to the inbox, and compares two runs."""

from __future__ import annotations

import os
from typing import Any

import pytest

from evals import services
from evals.models import TrialOutcome, TrialResult
from evals.services.suites import suite_from_mapping
from tests.e2e.conftest import read
from tests.evals.conftest import suite_dict

pytestmark = pytest.mark.django_db(transaction=True)


def _run(actor: Any, **overrides: Any) -> Any:
    run = services.eval_run_create(actor=actor, suite=suite_from_mapping(suite_dict(**overrides)))
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def test_a_release_manager_reads_a_failing_run_and_sends_a_trial_to_the_inbox(
    logged_in_page: Any, rita: Any
) -> None:
    run = _run(rita, agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    page = logged_in_page(rita)
    page.click("nav >> text=Go-live")
    page.click(f"a[href='/evals/{run.pk}/']")
    assert page.get_attribute("[data-verdict]", "data-verdict") == "fail"
    assert page.locator("[data-testid=passk-chart] svg polyline").count() >= 1
    assert page.locator("[data-testid=heatmap] svg [data-cell]").count() == 2
    assert "policy violation" in page.inner_text("[data-testid=checks]")

    page.click("[data-testid=failing] a >> nth=0")
    assert page.locator("[data-testid=toolcall]").count() >= 1
    assert page.locator("[data-testid=verdict].verdict-bad").count() >= 1
    page.click("[data-testid=create-ticket]")
    page.wait_for_selector("[data-testid=ticket-link]")
    trial = TrialResult.objects.exclude(ticket=None).get()
    assert trial.outcome != TrialOutcome.PASS
    href = page.get_attribute("[data-testid=ticket-link] a", "href")
    assert href == f"/tickets/{trial.ticket_id}/"
    # The ticket waits in the go-live queue for an operator; it links back to the trial.
    ticket = trial.ticket
    assert ticket is not None and ticket.queue.slug == "go-live"
    opening = ticket.messages.first()
    assert opening is not None
    assert f"/evals/{run.pk}/trials/{trial.pk}/" in opening.body


def test_the_comparison_page_puts_the_regression_first(logged_in_page: Any, rita: Any) -> None:
    good = _run(rita)
    bad = _run(rita, agent={"model": "sandbox/fault:do_nothing"})
    page = logged_in_page(rita)
    page.goto("/evals/")
    page.check(f"input[name=a][value='{good.pk}']")
    page.check(f"input[name=b][value='{bad.pk}']")
    page.click("text=Compare A → B")
    page.wait_for_url("**/evals/compare/**")
    first_row = page.locator("[data-testid=flips] tbody tr").first
    assert "regression" in (first_row.get_attribute("class") or "")
    assert "went from pass to fail" in page.inner_text("[data-testid=compare-summary]")


def test_an_agent_operator_does_not_see_go_live(logged_in_page: Any, alice: Any) -> None:
    page = logged_in_page(alice)
    assert page.locator("nav >> text=Go-live").count() == 0
    response = page.goto("/evals/")
    assert response is not None and response.status == 404


@pytest.mark.parametrize("width", [1400, 390])
def test_a_run_with_spoiled_trials_says_no_verdict_and_shows_pass_k_with_them_as_failures(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Any
) -> None:
    from evals.models import EvalRun, RunStatus
    from tests.evals.test_errors import _plant_errors

    gate = {"max_simulator_error_rate": 0.5, "pass_hat_k_lower": 0.0, "pass_hat_1": 0.0}
    run = _run(rita, gate=gate)
    _plant_errors(run, infra=0, simulator=1)
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    run = services.eval_run_finalise(run_id=run.pk)
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/evals/{run.pk}/")
    read(page)  # a person reads the verdict before scrolling
    assert page.get_attribute("[data-verdict]", "data-verdict") == "error"
    checks = page.inner_text("[data-testid=checks]")
    assert "fewer than 2 measured trials" in checks
    strict = page.locator("[data-testid=passk-strict]").first.inner_text()
    shown = page.locator("[data-testid=passk-table] strong").first.inner_text()
    assert float(strict) < float(shown)
    page.screenshot(path=str(tmp_path / f"run-no-verdict-{width}.png"), full_page=True)
    if os.environ.get("E2E_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/run-no-verdict-{width}.png")
