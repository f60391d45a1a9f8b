"""A run's history in a real browser at 1400 px and 390 px: pass^k per domain over the
suite's last runs, as a chart and a table naming the agent, its code and who ran it."""

from __future__ import annotations

from typing import Any

import pytest

from evals import services
from evals.models import EvalRun
from evals.services.suites import suite_from_mapping
from tests.e2e.conftest import read, screenshot, sign_in
from tests.evals.conftest import suite_dict

pytestmark = pytest.mark.django_db(transaction=True)


def _run(actor: Any, agent: str, name: str = "t") -> EvalRun:
    suite = suite_from_mapping(suite_dict(name=name, agent={"model": agent}))
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def test_the_run_page_shows_the_suite_s_history_up_to_this_run(
    person_page: Any, rita: Any, make_operator: Any
) -> None:
    from identity.models import Role
    from tests.conftest import PASSWORD

    sam = make_operator("sam", [Role.RELEASE_MANAGER])

    first = _run(rita, "sandbox/reference")
    second = _run(sam, "sandbox/fault:skip_confirmation")
    _run(rita, "sandbox/reference", name="other-suite")  # another suite: not its history
    third = _run(rita, "sandbox/reference")
    later = _run(sam, "sandbox/reference")  # after the run looked at: not in its history
    page = sign_in(person_page, rita, PASSWORD)
    page.goto(f"/evals/{third.pk}/")
    read(page)
    rows = page.locator("[data-testid=history] tbody tr")
    assert [rows.nth(i).get_attribute("data-run") for i in range(rows.count())] == [
        str(first.pk),
        str(second.pk),
        str(third.pk),
    ]
    assert page.locator(f"[data-testid=history] tr[data-run='{later.pk}']").count() == 0
    assert rows.nth(2).get_attribute("class") == "history-current"
    middle = rows.nth(1).inner_text()
    assert "sandbox/fault:skip_confirmation" in middle and "Sam" in middle
    retail = second.summary["report"]["by_domain"]["retail"]["2"]["value"]
    assert f"{retail:.3f}" in middle
    chart = page.locator("[data-testid=history-chart] [data-domain=retail] circle")
    assert chart.count() == 3
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    wide = page.evaluate(
        "() => [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right"
        " > window.innerWidth + 1 && e.parentElement.getBoundingClientRect().right <= window.innerWidth + 1).slice(0, 5).map(e => e.tagName + '.' + e.className + ' '"
        " + (e.getAttribute('data-testid') || '') + ' < ' + e.parentElement.tagName + '.' + e.parentElement.className)"
    )
    assert widths[0] <= widths[1], (widths, wide)
    page.locator("[data-testid=history]").scroll_into_view_if_needed()
    screenshot(page, "history")
