"""τ²-bench's own reward on the run page, as the release manager reads it at a desk's and at
a phone's width: present for a τ² run, one line under the pass^k table."""

from __future__ import annotations

from typing import Any

import pytest

from evals import services
from evals.services.suites import suite_from_mapping
from tests.conftest import PASSWORD
from tests.e2e.conftest import screenshot, sign_in
from tests.evals.conftest import suite_dict

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_run_page_shows_taus_own_reward_beside_ours(person_page: Any, rita: Any) -> None:
    suite = suite_from_mapping(suite_dict(trials=1, domains=[{"name": "tau2_mock"}]))
    run = services.eval_run_create(actor=rita, suite=suite)
    run = services.eval_run_execute(actor=rita, run_id=run.pk)
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/")
    line = page.locator("[data-testid=published-reward]")
    assert line.is_visible()
    text = line.inner_text()
    mean = run.summary["report"]["published_mean_reward"]
    assert f"mean {mean:.3f}" in text and text.index("database") < text.index("communicate")
    screenshot(page, "golive-published-reward")
