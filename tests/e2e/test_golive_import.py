"""Importing an engine run file in a real browser at 1400 px and 390 px: a release manager
uploads the .jsonl that `python -m evals.engine run` wrote, reads the run and opens a failing
trial in the trial viewer; a malformed file is refused with its line, and nothing is kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals.engine.cli import main as engine_main
from evals.models import EvalRun, TrialResult
from tests.e2e.conftest import read, screenshot, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _fits(page: Any) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths


def test_a_release_manager_uploads_an_engine_run_and_reads_its_trials(
    person_page: Any, rita: Any, tmp_path: Path
) -> None:
    from tests.conftest import PASSWORD

    good = tmp_path / "candidate.jsonl"
    args = ["run", "--domain", "retail", "--split", "smoke", "--trials", "2"]
    args += ["--agent", "sandbox/fault:skip_confirmation", "--out", str(good)]
    assert engine_main(args) in (0, 1)
    lines = good.read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([lines[0], lines[1][:40], *lines[2:]]) + "\n")

    page = sign_in(person_page, rita, PASSWORD)
    page.goto("/evals/")
    read(page)
    _fits(page)
    # A malformed file: the line that is wrong, and no run.
    page.set_input_files("#id_import_file", str(broken))
    page.click("[data-testid=import-run] button[type=submit]")
    page.wait_for_url("**/evals/")
    alert = page.locator("ul.flash li.flash-error").inner_text()
    assert "broken.jsonl" in alert and "line 2 is not JSON" in alert
    assert "nothing was imported" in alert
    assert not EvalRun.objects.exists() and not TrialResult.objects.exists()
    screenshot(page, "import-refused")

    page.set_input_files("#id_import_file", str(good))
    page.click("[data-testid=import-run] button[type=submit]")
    page.wait_for_url("**/evals/*/")
    read(page)
    run = EvalRun.objects.get()
    assert run.total_units == len(lines)
    assert "candidate.jsonl" in page.inner_text("[data-testid=imported]")
    assert page.locator("[data-testid=heatmap] [data-cell]").count() >= 1
    _fits(page)
    screenshot(page, "import-run")
    page.click("[data-testid=failing] a >> nth=0")
    page.wait_for_url(f"**/evals/{run.pk}/trials/*/")
    assert page.inner_text("[data-testid=outcome]") == "Fail"
    assert page.locator("[data-testid=conversation] li.msg").count() > 2
    _fits(page)
    screenshot(page, "import-trial")
