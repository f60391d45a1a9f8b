"""Comparing two runs in a real browser at 1400 px and 390 px, as a release manager picks
between a baseline and a candidate that is short with impatient members."""

from __future__ import annotations

from typing import Any

import pytest

from evals import services
from evals.models import EvalRun, TrialResult
from evals.services.suites import suite_from_mapping
from tests.e2e.conftest import read, screenshot, sign_in
from tests.evals.conftest import suite_dict
from tests.evals.test_cell_floors import TOUCHY_IN_MEMBERSHIP

pytestmark = pytest.mark.django_db(transaction=True)

DOMAINS = [{"name": "retail", "split": "smoke"}, {"name": "membership", "split": "all"}]


def _run(actor: Any, agent: str) -> EvalRun:
    suite = suite_from_mapping(suite_dict(agent={"model": agent}, domains=DOMAINS))
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def test_the_candidate_s_regression_is_marked_per_domain_and_persona_and_its_flips_open(
    person_page: Any, rita: Any
) -> None:
    from tests.conftest import PASSWORD

    baseline = _run(rita, "sandbox/reference")
    candidate = _run(rita, TOUCHY_IN_MEMBERSHIP)
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{candidate.pk}/")
    read(page)
    page.select_option("#compare-a", str(baseline.pk))
    page.click("text=Compare with this run")
    page.wait_for_url(f"**/evals/compare/?b={candidate.pk}&a={baseline.pk}")
    read(page)

    def row(table: str, label: str, k: int) -> Any:
        return page.locator(f"[data-testid={table}] tr[data-label='{label}'][data-k='{k}']")

    # Membership and the impatient persona are marked worse; retail and baseline are not.
    for table, label in (("compare-domains", "membership"), ("compare-personas", "impatient")):
        marked = row(table, label, 2)
        assert marked.get_attribute("data-separated") == "true"
        assert "worse" in marked.inner_text()
    for table, label in (("compare-domains", "retail"), ("compare-personas", "baseline")):
        same = row(table, label, 2)
        assert same.get_attribute("data-separated") == "false"
        assert "0.000" in same.locator("td").nth(4).inner_text()
    # The flipped cells, and only those: membership x impatient.
    failing_cells = {
        (t.task_id, t.persona)
        for t in TrialResult.objects.filter(run=candidate).exclude(outcome="pass")
    }
    flips = page.locator("[data-testid=flips] tbody tr")
    assert flips.count() == len(failing_cells) > 0
    for i in range(flips.count()):
        assert (
            "/impatient" in flips.nth(i).inner_text() and "pass → fail" in flips.nth(i).inner_text()
        )
    assert page.locator("[data-testid=compare-usage] tbody tr").count() == 3  # all, 2 domains
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    screenshot(page, "compare")

    # B's side opens the candidate's failing trial; A's the baseline's passing one.
    page.locator("[data-testid=flip-b]").first.click()
    page.wait_for_url(f"**/evals/{candidate.pk}/trials/*/")
    assert page.inner_text("[data-testid=outcome]") == "Fail"
    page.go_back()
    page.locator("[data-testid=flip-a]").first.click()
    page.wait_for_url(f"**/evals/{baseline.pk}/trials/*/")
    assert page.inner_text("[data-testid=outcome]") == "Pass"
