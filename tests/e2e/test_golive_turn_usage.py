"""Tokens and cost per turn on the trial page, in a real browser at 1400 px and 390 px: an
agent behind an OpenAI-compatible endpoint (the local stub server) answers each turn, and the
page shows what each of its messages took (seconds, tokens in and out, cost), beside the
customer's messages that made no model call."""

from __future__ import annotations

from typing import Any

import pytest

from evals import services
from evals.models import TrialResult
from evals.services.suites import suite_from_mapping
from tests.e2e.conftest import read, screenshot, sign_in
from tests.evals.conftest import suite_dict
from tests.support.openai_server import openai_server as openai_server
from tests.support.openai_server import text

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_agent_message_shows_its_seconds_tokens_and_cost(
    person_page: Any, rita: Any, openai_server: Any
) -> None:
    from tests.conftest import PASSWORD

    openai_server.set_default(
        text("Could you tell me your email address?", prompt_tokens=50, completion_tokens=7)
    )
    params = {
        "api_base": openai_server.url,
        "api_key": "k",
        "input_cost_per_token": 0.001,
        "output_cost_per_token": 0.002,
    }
    suite = suite_from_mapping(
        suite_dict(
            trials=1,
            personas=["baseline"],
            domains=[{"name": "retail", "tasks": ["retail-000-cancel-email"]}],
            agent={"model": "openai/agent-x", "params": params},
            limits={"max_turns": 6},
        )
    )
    run = services.eval_run_create(actor=rita, suite=suite)
    run = services.eval_run_execute(actor=rita, run_id=run.pk)
    trial = TrialResult.objects.get(run=run)
    assert trial.trajectory is not None
    records = trial.trajectory["message_records"]
    agent = [r for r in records if r["actor"] == "agent"]
    assert agent and all(r["tokens_in"] == 50 and r["tokens_out"] == 7 for r in agent)

    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/trials/{trial.pk}/")
    read(page)
    # In the conversation: every message with its record says what it took.
    badges = page.locator("li.msg-assistant [data-testid=msg-usage]")
    assert badges.count() == len(agent)
    first = badges.first.inner_text()
    assert "50 in / 7 out tokens" in first and "$0.0640" in first
    customer = page.locator("li.msg-user [data-testid=msg-usage]")
    assert customer.count() >= 1 and "no model call" in customer.last.inner_text()
    # The per-message table: one row per recorded message, costs adding up to the trial's.
    table = page.locator("[data-testid=usage-per-turn] tbody tr")
    assert table.count() == len(records)
    shown = [
        float(table.nth(i).locator("td").nth(5).inner_text().lstrip("$"))
        for i in range(table.count())
    ]
    assert sum(shown) == pytest.approx(trial.agent_cost_micros / 1_000_000, abs=1e-3)
    assert "per trial and role only" not in page.inner_text("main")
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1]
    screenshot(page, "trial-turn-usage")
    page.locator("[data-testid=usage-per-turn]").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot(page, "trial-turn-usage")).replace(".png", "-table.png"))
