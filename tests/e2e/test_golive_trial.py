"""The trial page in a real browser, as a release manager reads it at 1400 px and 390 px: the
verdict and failure class before the conversation, nothing wider than the window, the agent's
policy collapsed and rendered; an error trial says what failed and offers a re-run, never a
ticket or a verdict on a state that was never judged."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from evals import services
from evals.engine.errors import EngineError, InfrastructureError
from evals.engine.messages import Message
from evals.engine.registry import agent_factory, register_agent
from evals.models import EvalRun, RunStatus, TrialOutcome, TrialResult
from evals.services.suites import suite_from_mapping
from identity.models import AuditEvent
from tests.evals.conftest import store_selftest, suite_dict

pytestmark = pytest.mark.django_db(transaction=True)

FLAKY = "test/provider-flaky"
# While True the flaky provider answers every call with an outage; the test "fixes" it.
PROVIDER_DOWN = {"down": True}


class FlakyProvider:
    """The reference agent behind a provider that is down until the test brings it back."""

    def __init__(self, **kwargs: Any) -> None:
        self.inner = agent_factory("sandbox/reference")(**kwargs)

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        if PROVIDER_DOWN["down"]:
            raise InfrastructureError("503 Service Unavailable from the provider after 5 attempts")
        return self.inner.respond(messages, tools)


with contextlib.suppress(EngineError):
    register_agent(FLAKY, lambda **kwargs: FlakyProvider(**kwargs))


def _run(actor: Any, **overrides: Any) -> EvalRun:
    run = services.eval_run_create(actor=actor, suite=suite_from_mapping(suite_dict(**overrides)))
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def _shot(page: Any, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    if os.environ.get("E2E_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/{name}.png", full_page=True)


def _fits_the_window(page: Any) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"


def _top(page: Any, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return float(box["y"])


@pytest.mark.parametrize("width", [1400, 390])
def test_a_failing_trial_opens_on_its_verdict_and_fits_the_window(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Path
) -> None:
    run = _run(rita, agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    trial = TrialResult.objects.filter(run=run, outcome=TrialOutcome.FAIL).order_by("id").first()
    assert trial is not None
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/evals/{run.pk}/trials/{trial.pk}/")

    _fits_the_window(page)
    # The verdict and the failure class come first, in the first screen, before the talk.
    assert page.inner_text("[data-testid=outcome]") == "Fail"
    assert page.inner_text("[data-testid=failure-class]") == trial.failure_class
    assert _top(page, "[data-testid=failure-class]") < 900
    assert _top(page, "[data-testid=trial-verdict]") < _top(page, "[data-testid=conversation]")
    assert page.locator("[data-testid=create-ticket]").is_visible()
    # The policy is collapsed, and rendered (a heading, not "# Retail ..." as text).
    policy = page.locator("details[data-testid=policy]")
    assert policy.get_attribute("open") is None
    assert not page.locator("[data-testid=policy] .markdown h1").is_visible()
    assert "# Retail" not in page.inner_text("main")
    _shot(page, tmp_path, f"trial-failing-{width}")
    page.click("[data-testid=policy] summary")
    heading = page.locator("[data-testid=policy] .markdown h1").first
    assert heading.is_visible() and "policy" in heading.inner_text().lower()
    assert page.locator("[data-testid=policy] .markdown li").count() >= 3
    # The customer: persona traits and the scenario, collapsed like the policy.
    assert page.get_attribute("details[data-testid=customer]", "open") is None
    page.click("[data-testid=customer] summary")
    assert "impatience" in page.inner_text("[data-testid=persona]")
    from evals.domains import get_domain

    scenario = get_domain(trial.domain).task(trial.task_id).scenario
    assert scenario.reason in page.inner_text("[data-testid=scenario]")
    # Seconds for every turn the orchestrator timed, tokens and cost per role.
    assert trial.trajectory is not None
    timed = len(trial.trajectory["timings"])
    assert timed > 0 and page.locator("[data-testid=timings] tbody tr").count() == timed
    assert page.locator("[data-testid=trial-usage] tbody tr").count() == 2
    _fits_the_window(page)
    _shot(page, tmp_path, f"trial-failing-policy-open-{width}")


def test_previous_and_next_step_through_the_failing_trials(logged_in_page: Any, rita: Any) -> None:
    run = _run(rita, agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    failing = TrialResult.objects.filter(run=run).exclude(outcome=TrialOutcome.PASS).count()
    assert failing >= 2
    page = logged_in_page(rita)
    page.goto(f"/evals/{run.pk}/")
    page.click("[data-testid=failing] a >> nth=0")
    seen = [page.url]
    assert page.locator("[data-testid=previous-failing]").count() == 0
    while page.locator("[data-testid=next-failing]").count():
        page.click("[data-testid=next-failing]")
        assert page.inner_text("[data-testid=outcome]") != "Pass"
        seen.append(page.url)
    assert len(set(seen)) == failing  # every failing trial once, none passing
    page.click("[data-testid=previous-failing]")
    assert page.url == seen[-2]


@pytest.mark.parametrize("width", [1400, 390])
def test_an_error_trial_says_what_failed_and_offers_a_rerun_that_judges_the_run_again(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Path, settings: Any
) -> None:
    settings.EVALS_UI_INLINE = True  # the re-run runs in the request: the test reads its end
    store_selftest()
    PROVIDER_DOWN["down"] = True
    gate = {"pass_hat_k_lower": 0.5, "pass_hat_1": 0.8, "max_infrastructure_error_rate": 0.0}
    run = _run(rita, agent={"model": FLAKY}, gate=gate)
    assert run.status == RunStatus.ERROR and run.verdict == "error"
    trial = TrialResult.objects.filter(run=run).order_by("id").first()
    assert trial is not None and trial.outcome == TrialOutcome.INFRASTRUCTURE
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/evals/{run.pk}/trials/{trial.pk}/")

    _fits_the_window(page)
    verdict = page.inner_text("[data-testid=trial-verdict]")
    assert "Infrastructure error" in verdict
    assert "503 Service Unavailable" in page.inner_text("[data-testid=trial-error]")
    assert page.locator("[data-testid=create-ticket]").count() == 0
    main = page.inner_text("main")
    assert "Create ticket" not in main
    assert "equals the gold replay" not in main
    assert "Not compared" in page.inner_text("[data-testid=diff]")
    _shot(page, tmp_path, f"trial-error-{width}")

    PROVIDER_DOWN["down"] = False  # the provider is back
    ids = set(TrialResult.objects.filter(run=run).values_list("id", flat=True))
    page.click("[data-testid=rerun]")
    page.wait_for_url(f"**/evals/{run.pk}/")
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"
    rows = TrialResult.objects.filter(run=run)
    assert set(rows.values_list("id", flat=True)) == ids  # replaced in place, none added
    assert not rows.exclude(outcome=TrialOutcome.PASS).exists()
    assert AuditEvent.objects.filter(action="evals.run.rerun_errors").count() == 1
    page.goto(f"/evals/{run.pk}/trials/{trial.pk}/")
    assert page.inner_text("[data-testid=outcome]") == "Pass"


@pytest.mark.parametrize("width", [1400, 390])
def test_the_same_task_in_every_trial_of_its_cell_side_by_side(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Path
) -> None:
    run = _run(
        rita,
        trials=3,
        agent={"model": "sandbox/fault:skip_confirmation"},
        guard_mode="observe",
    )
    trial = TrialResult.objects.filter(run=run, outcome=TrialOutcome.FAIL).order_by("id").last()
    assert trial is not None
    cell = TrialResult.objects.filter(
        run=run, domain=trial.domain, task_id=trial.task_id, persona=trial.persona
    ).order_by("trial")
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/evals/{run.pk}/trials/{trial.pk}/")
    page.click("[data-testid=cell-link]")
    page.wait_for_url(f"**/trials/{trial.pk}/cell/")

    columns = page.locator("[data-testid=cell-trial]")
    assert columns.count() == cell.count() == 3
    for i, row in enumerate(cell):
        column = columns.nth(i)
        assert column.get_attribute("data-outcome") == row.outcome
        assert f"Trial {row.trial}" in column.locator("h2").inner_text()
    current = page.locator(".cell-current")
    assert current.count() == 1 and f"Trial {trial.trial}" in current.inner_text()
    # Tool calls are collapsed: names and guard badges show, arguments open on a click.
    first_call = columns.first.locator("details.toolcall").first
    assert first_call.get_attribute("open") is None
    first_call.locator("summary").click()
    assert first_call.locator("pre.toolargs").is_visible()
    _fits_the_window(page)
    _shot(page, tmp_path, f"trial-cell-{width}")
    if os.environ.get("E2E_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/trial-cell-{width}-top.png")


@pytest.mark.parametrize("width", [1400, 390])
def test_find_in_the_transcript_marks_the_messages_and_opens_the_tool_call_holding_it(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Path
) -> None:
    run = _run(rita, agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    trial = TrialResult.objects.filter(run=run, outcome=TrialOutcome.FAIL).order_by("id").first()
    assert trial is not None and trial.trajectory is not None
    messages = trial.trajectory["messages"]
    results = {m.get("tool_call_id"): m.get("content", "") for m in messages if m["role"] == "tool"}
    # A word that only a tool's result holds: the customer id the first lookup answers.
    first_result = next(iter(results.values()))
    query = first_result.split('"')[3]
    shown = [m for m in messages if m["role"] in ("user", "assistant")]

    def holds(m: dict[str, Any]) -> bool:
        calls = m.get("tool_calls", [])
        text = m.get("content", "") + "".join(
            c["name"] + c["arguments"] + results.get(c["id"], "") for c in calls
        )
        return query.lower() in text.lower()

    expected = sum(1 for m in shown if holds(m))
    assert 0 < expected < len(shown)
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/evals/{run.pk}/trials/{trial.pk}/")
    page.click("[data-testid=toggle-calls]")  # collapse every tool call
    assert page.locator("details.toolcall[open]").count() == 0

    page.fill("[data-testid=find]", query)
    assert page.inner_text("[data-testid=find-status]") == f"match 1 of {expected} messages"
    assert page.locator("li.msg.find-hit").count() == expected
    assert page.locator("li.msg.find-dim").count() == len(shown) - expected
    current = page.locator("li.msg.find-current")
    assert current.count() == 1
    assert current.locator("details.toolcall[open]").count() >= 1  # opened to show the hit
    page.press("[data-testid=find]", "Enter")
    if expected > 1:
        assert page.inner_text("[data-testid=find-status]") == f"match 2 of {expected} messages"
    _fits_the_window(page)
    _shot(page, tmp_path, f"trial-find-{width}")
    if os.environ.get("E2E_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/trial-find-{width}-top.png")
    page.fill("[data-testid=find]", "no such words anywhere")
    assert page.inner_text("[data-testid=find-status]") == "no message contains it"
    page.fill("[data-testid=find]", "")
    assert page.locator("li.msg.find-dim").count() == 0


@pytest.mark.parametrize("width", [1400, 390])
def test_a_failure_class_and_a_cell_open_the_trials_behind_them_and_transcripts_are_searched(
    logged_in_page: Any, rita: Any, width: int, tmp_path: Path
) -> None:
    run = _run(rita, agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    page = logged_in_page(rita)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/evals/{run.pk}/")
    page.click("[data-testid=failure-links] a >> nth=0")
    page.wait_for_url(f"**/evals/{run.pk}/trials/?failure=*")
    failure = page.input_value("#f-failure")
    expected = TrialResult.objects.filter(run=run, failure_class=failure).count()
    assert expected > 0
    assert page.locator("[data-testid=trial-list] tbody tr").count() == expected
    _fits_the_window(page)
    _shot(page, tmp_path, f"trial-list-failure-{width}")

    page.goto(f"/evals/{run.pk}/")
    page.click("[data-testid=heatmap-links] a >> nth=0")
    domain, persona = page.input_value("#f-domain"), page.input_value("#f-persona")
    in_cell = TrialResult.objects.filter(run=run, domain=domain, persona=persona)
    assert page.locator("[data-testid=trial-list] tbody tr").count() == in_cell.count() > 0

    # A search over the transcripts: a customer's email is in the trials of their tasks only.
    trial = in_cell.order_by("id").first()
    assert trial is not None and trial.trajectory is not None
    email = next(
        word.strip(".,")
        for m in trial.trajectory["messages"]
        if m["role"] == "user"
        for word in m.get("content", "").split()
        if "@" in word
    )
    holding = [t.pk for t in TrialResult.objects.filter(run=run) if email in str(t.trajectory)]
    page.goto(f"/evals/{run.pk}/trials/")
    page.fill("[data-testid=transcript-search]", email)
    page.click("[data-testid=trial-filters] button[type=submit]")
    page.wait_for_url("**q=*")
    links = page.locator("[data-testid=trial-list] tbody tr a")
    assert links.count() == len(holding) < TrialResult.objects.filter(run=run).count()
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert hrefs == {f"/evals/{run.pk}/trials/{pk}/" for pk in holding}
    _fits_the_window(page)
    _shot(page, tmp_path, f"trial-list-search-{width}")
