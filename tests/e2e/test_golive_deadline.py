"""Issue 14, finding 5: a running go-live run shows its deadline — when, in how long, and
what happens then — in a person's browser at a desk's and a phone's width."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from evals import services
from evals.models import EvalRun, Executor, RunStatus
from evals.services.suites import suite_from_mapping
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in
from tests.evals.conftest import store_selftest, suite_dict

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_running_run_shows_its_deadline_and_what_then(person_page: Any, rita: Any) -> None:
    store_selftest()
    run = services.eval_run_create(
        actor=rita, suite=suite_from_mapping(suite_dict()), executor=Executor.CELERY
    )
    deadline = timezone.now() + dt.timedelta(minutes=17)
    EvalRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING, started_at=timezone.now(), deadline_at=deadline
    )
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{run.pk}/")
    read(page)
    shown = page.locator("[data-testid=progress-deadline]")
    assert shown.is_visible()
    text = shown.inner_text().replace("\xa0", " ")  # timeuntil joins with no-break spaces
    assert deadline.strftime("%Y-%m-%d %H:%M") in text
    assert "in 16 minutes" in text or "in 17 minutes" in text
    assert "sent to the workers again, once" in text
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width}px wide"
    screenshot(page, "golive-run-deadline")
    # After the one re-dispatch, the next poll says the run will end (resumable).
    EvalRun.objects.filter(pk=run.pk).update(redispatches=1)
    page.wait_for_selector("[data-testid=progress-deadline][data-then=end]", timeout=15_000)
    assert "you can resume it" in page.inner_text("[data-testid=progress-deadline]")
    screenshot(page, "golive-run-deadline-end")
