"""Drill-down in a real browser at 1400 px and 390 px: every mark of the run page's charts
that stands for trials (a heatmap cell, a persona's band, a domain's pass^k band, a failure
class's bar) opens the trial list narrowed to exactly those trials."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals import services
from evals.models import EvalRun, TrialResult
from evals.services.suites import suite_from_mapping
from tests.e2e.conftest import SCREENSHOTS, read, screenshot, sign_in
from tests.evals.conftest import suite_dict

pytestmark = pytest.mark.django_db(transaction=True)


def _run(actor: Any) -> EvalRun:
    suite = suite_from_mapping(
        suite_dict(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    )
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def _fits(page: Any) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"


def _listed(page: Any) -> set[str]:
    links = page.locator("[data-testid=trial-list] tbody tr a")
    return {links.nth(i).get_attribute("href") or "" for i in range(links.count())}


def _urls(run: EvalRun, rows: Any) -> set[str]:
    return {f"/evals/{run.pk}/trials/{pk}/" for pk in rows.values_list("pk", flat=True)}


def test_every_chart_mark_opens_the_trials_behind_it(
    person_page: Any, rita: Any, tmp_path: Path
) -> None:
    from tests.conftest import PASSWORD

    run = _run(rita)
    page = sign_in(person_page, rita, PASSWORD)
    all_rows = TrialResult.objects.filter(run=run)
    assert all_rows.exclude(outcome="pass").exists() and all_rows.filter(outcome="pass").exists()

    # A heatmap cell: that domain and persona.
    page.goto(f"/evals/{run.pk}/")
    read(page)
    _fits(page)
    screenshot(page, "drilldown-run")
    page.locator("[data-testid=heatmap] [data-cell='retail|impatient'] rect").click()
    page.wait_for_url("**/trials/?*")
    assert (page.input_value("#f-domain"), page.input_value("#f-persona")) == (
        "retail",
        "impatient",
    )
    assert _listed(page) == _urls(run, all_rows.filter(domain="retail", persona="impatient"))
    _fits(page)
    screenshot(page, "drilldown-cell")

    # A persona's band on the persona chart.
    page.goto(f"/evals/{run.pk}/")
    page.locator("[data-testid=persona-chart] [data-series=baseline] rect").click()
    page.wait_for_url("**/trials/?persona=baseline")
    assert _listed(page) == _urls(run, all_rows.filter(persona="baseline"))

    # A domain's pass^k band (its line and points) on the pass^k chart.
    page.goto(f"/evals/{run.pk}/")
    page.locator("[data-testid=passk-chart] [data-series=retail] circle").first.click()
    page.wait_for_url("**/trials/?domain=retail")
    assert _listed(page) == _urls(run, all_rows.filter(domain="retail"))

    # A failure class's bar.
    failure = (
        all_rows.exclude(failure_class="").values_list("failure_class", flat=True).first() or ""
    )
    assert failure
    page.goto(f"/evals/{run.pk}/")
    page.locator(f"[data-testid=failures] [data-bar='{failure}'] rect").click()
    page.wait_for_url(f"**/trials/?failure={failure}")
    assert page.input_value("#f-failure") == failure
    assert _listed(page) == _urls(run, all_rows.filter(failure_class=failure))
    _fits(page)
    screenshot(page, "drilldown-failure")


def test_the_heatmap_shows_distance_to_the_floor_and_the_weakest_cells_come_first(
    person_page: Any, rita: Any
) -> None:
    from tests.conftest import PASSWORD
    from tests.evals.test_cell_floors import TOUCHY_IN_MEMBERSHIP

    suite = suite_from_mapping(
        suite_dict(
            agent={"model": TOUCHY_IN_MEMBERSHIP},
            domains=[
                {"name": "retail", "split": "smoke"},
                {"name": "membership", "split": "smoke"},
            ],
            gate={
                "pass_hat_k_lower": 0.0,
                "pass_hat_1": 0.5,
                "cell_floors": {"membership": {"impatient": 0.8}},
                "persona_floors": {"baseline": 0.9},
            },
        )
    )
    run = services.eval_run_create(actor=rita, suite=suite)
    run = services.eval_run_execute(actor=rita, run_id=run.pk)
    assert run.verdict == "fail"
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/")
    read(page)
    _fits(page)

    # The cell below its floor is red and says by how much; one above its persona floor is not.
    below = page.locator("[data-testid=heatmap] [data-cell='membership|impatient']")
    assert below.get_attribute("data-below") == "true"
    assert below.get_attribute("data-floor") == "0.8"
    cell = run.summary["heatmap"]["cells"]["membership|impatient"]["passk"]
    assert cell < 0.8
    assert f"floor 0.80 ({cell - 0.8:+.2f})" in (below.text_content() or "")
    fill = below.locator("rect").get_attribute("fill") or ""
    assert fill.startswith("hsl(0,"), fill
    above = page.locator("[data-testid=heatmap] [data-cell='retail|baseline']")
    assert above.get_attribute("data-below") == "false"
    assert (above.locator("rect").get_attribute("fill") or "").startswith("hsl(120,")
    assert (
        page.locator("[data-testid=heatmap] [data-cell='retail|impatient']").get_attribute(
            "data-floor"
        )
        is None
    )  # no floor: the plain scale
    assert "distance" in page.inner_text("[data-testid=heatmap-scale]")

    # The weakest cells, first the one below its floor, each linking to its trials.
    rows = page.locator("[data-testid=weakest-cells] tbody tr")
    assert rows.first.get_attribute("data-cell") == "membership|impatient"
    assert "below" in rows.first.inner_text()
    assert rows.count() == 4
    # The verdict names the floor that failed.
    failing = page.locator("[data-testid=checks] tr.check-bad", has_text="floor")
    assert failing.count() == 1 and "membership x impatient" in failing.inner_text()
    screenshot(page, "floors-run")
    page.locator("[data-testid=weakest-cells]").scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"floors-heatmap-{page.width_name}.png"))
    rows.first.locator("a").click()
    page.wait_for_url("**/trials/?domain=membership&persona=impatient")
    _fits(page)


def test_the_run_downloads_as_json_lines_one_per_trial(person_page: Any, rita: Any) -> None:
    import json

    from tests.conftest import PASSWORD

    run = _run(rita)
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/")
    read(page)
    with page.expect_download() as download:
        page.click("[data-testid=export-jsonl]")
    path = download.value.path()
    assert download.value.suggested_filename == f"golive-run-{run.pk}.jsonl"
    lines = Path(path).read_text().splitlines()
    assert len(lines) == TrialResult.objects.filter(run=run).count()
    assert {"task_id", "trial", "reward_info", "messages"} <= set(json.loads(lines[0]))
