"""Starting a run from the browser with a model name that does not exist: the form comes
back with the reason beside it, and nothing was started (at 1400 px and 390 px)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from evals.models import EvalRun

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1400, 390])
def test_a_made_up_agent_name_is_refused_on_the_form_before_anything_runs(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Path
) -> None:
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/evals/")
    page.select_option("#id_suite", "smoke")
    page.fill("#id_agent", "gpt-imaginary-9")
    # The first LLM name a server process checks imports LiteLLM (seconds on a busy machine).
    with page.expect_response(lambda r: r.url.endswith("/evals/start/"), timeout=90_000) as answer:
        page.click("[data-testid=start-run] button[type=submit]", timeout=90_000)
    assert answer.value.status == 400
    errors = page.locator("[data-testid=start-errors]")
    assert errors.is_visible()
    assert "agent 'gpt-imaginary-9'" in errors.inner_text()
    assert "cannot route" in errors.inner_text()
    assert page.input_value("#id_agent") == "gpt-imaginary-9"  # kept, to be corrected
    assert not EvalRun.objects.exists()
    page.screenshot(path=str(tmp_path / f"start-refused-{width}.png"), full_page=True)
    if os.environ.get("E2E_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/start-refused-{width}.png")
    width_now = page.evaluate("() => document.documentElement.scrollWidth")
    assert width_now <= width
