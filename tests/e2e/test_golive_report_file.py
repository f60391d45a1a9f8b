"""In a real browser at 1400 px and 390 px: the report downloaded from the run page opens from
file:// with no request but the file itself and holds the verdict and every domain; the run
page's verdict panel shows the self-test the gate read, and its page lists caught / applicable
per fault with each miss linked to the run's trials of that task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals import services
from evals.domains import get_domain
from evals.models import EvalRun, EvalSelftest, TrialResult
from evals.services.suites import suite_from_mapping
from tests.e2e.conftest import SCREENSHOTS, read, screenshot, sign_in
from tests.evals.conftest import store_selftest, suite_dict

pytestmark = pytest.mark.django_db(transaction=True)

DOMAINS = [{"name": "retail", "split": "smoke"}, {"name": "membership", "split": "smoke"}]


def _run(actor: Any, **overrides: Any) -> EvalRun:
    suite = suite_from_mapping(suite_dict(domains=DOMAINS, **overrides))
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def _fits(page: Any) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"


def test_the_downloaded_report_opens_offline_with_the_verdict_and_every_domain(
    person_page: Any, browser: Any, rita: Any, tmp_path: Path
) -> None:
    from tests.conftest import PASSWORD

    store_selftest()
    run = _run(
        rita,
        agent={"model": "sandbox/fault:skip_confirmation"},
        guard_mode="observe",
    )
    assert run.verdict == "fail"
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/")
    read(page)
    with page.expect_download() as download:
        page.click("[data-testid=export-html]")
    assert download.value.suggested_filename == f"golive-run-{run.pk}.html"
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(str(path))
    assert path.stat().st_size < 200_000  # cells and domains, not trials: no growth with trials

    # A fresh browser with nothing of the backoffice: every request it makes is recorded.
    viewport = page.viewport_size
    context = browser.new_context(viewport=viewport)
    try:
        offline = context.new_page()
        offline.width_name = page.width_name
        requests: list[str] = []
        offline.on("request", lambda r: requests.append(r.url))
        offline.goto(path.as_uri())
        read(offline)
        assert requests == [path.as_uri()]
        assert offline.locator("[data-verdict=fail]").is_visible()
        rows = offline.locator("[data-testid=passk] tbody tr")
        assert {rows.nth(i).get_attribute("data-domain") for i in range(rows.count())} == {
            "all",
            "retail",
            "membership",
        }
        checks = offline.locator("[data-testid=checks] tbody tr")
        assert checks.count() == len(run.verdict_reasons)
        assert offline.locator("[data-testid=grid] [data-cell]").count() == len(
            run.summary["heatmap"]["cells"]
        )
        assert offline.locator("[data-testid=terminations] tbody tr").count() >= 1
        assert offline.locator("[data-testid=selftest] tbody tr").count() >= 2
        _fits(offline)
        screenshot(offline, "report-file")
    finally:
        context.close()


def test_the_verdict_panel_opens_the_selftest_and_its_misses_open_the_trials(
    person_page: Any, rita: Any
) -> None:
    from tests.conftest import PASSWORD

    # The oracle let `skip_confirmation` through on one retail task: the gate fails the
    # sensitivity check and the run page says which self-test and how many misses.
    task = get_domain("retail").tasks("smoke")[0].id
    selftest = store_selftest({("retail", "skip_confirmation"): (1, 2)})
    results = selftest.results
    results["retail"]["skip_confirmation"]["missed"] = [{"task": task, "failure": "none"}]
    EvalSelftest.objects.filter(pk=selftest.pk).update(results=results)
    run = _run(rita)
    sensitivity = next(c for c in run.verdict_reasons if c["check"] == "oracle_sensitivity")
    assert not sensitivity["ok"]

    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/")
    read(page)
    panel = page.locator("[data-testid=selftest]")
    assert panel.locator("[data-testid=sensitivity-result]").inner_text().strip() == "fails"
    retail = panel.locator("[data-domain=retail]")
    evidence = run.summary["selftest"]["domains"]["retail"]["faults"].values()
    cells = [retail.locator("td").nth(i).inner_text().strip() for i in range(5)]
    assert cells == [
        "retail",
        f"#{selftest.pk}",
        f"{sum(r['caught'] == r['applicable'] for r in evidence)} / {len(evidence)}",
        f"{sum(r['caught'] for r in evidence)} / {sum(r['applicable'] for r in evidence)}",
        "1",
    ]
    assert "check-bad" in (retail.get_attribute("class") or "")
    _fits(page)
    screenshot(page, "selftest-run-page")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(SCREENSHOTS / f"selftest-verdict-panel-{page.width_name}.png"))

    retail.locator("td").nth(4).locator("a").click()
    page.wait_for_url(f"**/evals/selftests/{selftest.pk}/?run={run.pk}#selftest-misses")
    read(page)
    cell = page.locator("[data-cell='retail|skip_confirmation']")
    assert cell.inner_text().startswith("1 / 2")
    assert "falls short" in page.locator("[data-testid=selftest-result]").inner_text()
    _fits(page)
    screenshot(page, "selftest-page")

    page.locator(f"[data-miss='retail|skip_confirmation|{task}'] a").click()
    page.wait_for_url("**/trials/?*")
    assert (page.input_value("#f-domain"), page.input_value("#f-task")) == ("retail", task)
    links = page.locator("[data-testid=trial-list] tbody tr a")
    listed = {links.nth(i).get_attribute("href") for i in range(links.count())}
    expected = TrialResult.objects.filter(run=run, domain="retail", task_id=task)
    assert listed == {
        f"/evals/{run.pk}/trials/{pk}/" for pk in expected.values_list("pk", flat=True)
    }
    assert expected.exists()
