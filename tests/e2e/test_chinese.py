"""The backoffice in Simplified Chinese, in a real browser: a Chinese browser (Accept-Language
zh-CN) walks the main pages at desktop and phone width and finds no English interface text
in the header or the main content (only data: names, ids, references, codes); an English
browser switches with the header button, and the choice follows the operator to a new browser.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from evals import services as evals_services
from evals.models import EvalRun, RunStatus, TrialOutcome
from evals.services.suites import suite_from_mapping
from payments_sandbox.domain import Money
from payments_sandbox.services import payment_capture, refund_approve, refund_request
from tests.conftest import make_service_token
from tests.e2e.conftest import current_code
from tests.evals.conftest import suite_dict
from tests.tickets.conftest import join
from tickets import services as ticket_services
from tickets.models import Message, Queue, Ticket

pytestmark = pytest.mark.django_db(transaction=True)

WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*[A-Za-z]|[A-Za-z]")
# Data and technical tokens that read the same in Chinese: usernames and display names,
# currency codes, identifiers of models, suites, personas, domains and policy rules, units.
ALLOWED = {
    "SLA", "API", "AI", "LLM", "TOTP", "CSV", "UTC", "USD", "JPY", "EUR", "ID", "pass", "k", "s",
    "JSONL", "HTML", "bench",  # file formats, and τ²-bench, the benchmark named by its name
    "Chen", "chen", "Alice", "alice", "Bob", "bob", "Sam", "sam",
    "English",  # the header switch offers each language in its own name
    "v",  # the ticket's version (v1), which issue 15 item 8 takes off the page
    "A", "B",  # the two runs a comparison puts side by side
    # go-live suites, agents and user simulators are named by their ids
    "default", "sandbox", "reference", "scripted", "llm-example", "smoke", "retail",
    # the browser's user agent on the sessions list, the TOTP device's name
    "Mozilla", "X", "x", "Linux", "AppleWebKit", "KHTML", "HeadlessChrome", "Safari",
}  # fmt: skip


def _english_left(text: str, data: set[str]) -> list[str]:
    # Compared without case: CSS upper-cases some table headers (pass@k reads PASS@K).
    known = {w.lower() for w in ALLOWED | data}
    return sorted({w for w in WORD.findall(text) if w.lower() not in known})


def _shoot(page: Any, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    if os.environ.get("E2E_SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['E2E_SCREENSHOTS']}/{name}.png", full_page=True)


# Not interface text: identifiers shown in monospace (audit actions and diffs, hashes, provider
# ids). Text stored for people to read later (the ticket timeline, notification titles, the
# go-live checks, audit values) is stored as a key and parameters and worded when shown, so
# it is interface text: walked like the rest.
NOT_UI = ".mono, code, pre, kbd"
UI_TEXT_JS = """([selector, skip]) => {
  const copy = document.querySelector(selector).cloneNode(true);
  copy.querySelectorAll(skip).forEach((el) => el.remove());
  document.body.appendChild(copy);
  const text = copy.innerText;
  copy.remove();
  return text;
}"""


def _ui_text(page: Any) -> str:
    """What a person reads as interface: the header's links and buttons and the main area."""
    header = page.evaluate(UI_TEXT_JS, ["header", NOT_UI])
    return header + "\n" + page.evaluate(UI_TEXT_JS, ["main", NOT_UI])


def _escalated(queue: Queue, sam: Any, alice: Any, approver: Any) -> tuple[Ticket, set[str]]:
    """An escalation from the AI agent with a tool call, a ticket of the same customer merged
    into it and a refund decided on it: its conversation holds the AI agent's turns and the
    system notes of the merge and of the refund decision. Returns the ticket and its data
    words: the AI agent's service principal's name and its tags."""
    principal, _ = make_service_token(["escalations:create"])
    escalated = ticket_services.ticket_open_for_escalation(
        actor=principal,
        customer_name="王芳",
        customer_email="wang@example.test",
        category="dispute",
        reason="客户称被重复扣款。",
        summary="重复扣款 要求退款",
        transcript=[
            {"role": "customer", "content": "我被扣了两次钱。"},
            {
                "role": "assistant",
                "content": "我查一下这笔订单。",
                "tool_calls": [{"name": "get_order_details", "arguments": {"order_id": "88123"}}],
            },
        ],
        requested_action="退还重复扣款",
        queue_slug=queue.slug,
    )
    duplicate = ticket_services.ticket_open_for_customer(
        actor=sam,
        subject="又扣了一次",
        customer_message="还是没有退款。",
        customer_name="王芳",
        customer_email="wang@example.test",
        queue_id=queue.pk,
    )
    target = Ticket.objects.get(pk=escalated.ticket_id)
    ticket_services.ticket_merge(
        actor=sam,
        source_id=duplicate.pk,
        target_id=target.pk,
        expected_source_version=duplicate.version,
        expected_target_version=target.version,
    )
    payment = payment_capture(actor=None, amount=Money.parse("30.00", "USD"))
    refund = refund_request(
        actor=alice, payment_id=payment.pk, amount="8.00", reason="重复扣款", ticket_id=target.pk
    )
    refund_approve(actor=approver, refund_id=refund.pk, reason="核对无误")
    tags = " ".join(target.tags.values_list("name", flat=True))
    return target, set(WORD.findall(f"{principal.username} {principal} {tags}"))


def _finding(chen: Any) -> tuple[Ticket, set[str]]:
    """A go-live finding: a failing trial sent to the inbox. Returns the ticket and its data
    words: what the simulated customer, the agent and the tools said (in English: the sandbox's
    models speak it), the trial's identifiers, and the ticket's subject and queue, which are
    stored names (the subject is searched as stored)."""
    suite = suite_from_mapping(
        suite_dict(
            name="冒烟",
            agent={"model": "sandbox/fault:skip_confirmation"},
            guard_mode="observe",
        )
    )
    run = evals_services.eval_run_create(actor=chen, suite=suite)
    run = evals_services.eval_run_execute(actor=chen, run_id=run.pk)
    trial = run.trials.exclude(outcome=TrialOutcome.PASS).order_by("pk").first()
    assert trial is not None
    ticket = evals_services.eval_trial_ticket_create(actor=chen, trial_id=trial.pk)
    tags = " ".join(ticket.tags.values_list("name", flat=True))
    data = set(WORD.findall(f"{ticket.subject} {ticket.queue.name} {run.agent_model} {tags}"))
    for message in Message.objects.filter(ticket=ticket):
        if message.body_key is None:  # what was said, not what the backoffice wrote
            data.update(WORD.findall(message.body))
        elif message.body_key in ("tool_call", "finding"):
            data.update(WORD.findall(str(message.body_params)))
    data.update(WORD.findall(str(ticket.escalation.card_params)))
    return ticket, data


def _stopped_run(chen: Any) -> EvalRun:
    """A run that stopped with trials missing (its error worded on the run page)."""
    run = evals_services.eval_run_create(
        actor=chen, suite=suite_from_mapping(suite_dict(name="中断"))
    )
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    run = evals_services.eval_run_finalise(run_id=run.pk)
    assert run.status == RunStatus.FAILED and run.error_key == "missing"
    return run


@pytest.fixture
def world(make_operator: Callable[..., Any], alice: Any, sam: Any, bob: Any) -> dict[str, Any]:
    chen = make_operator("chen", ["agent", "approver", "auditor", "release_manager"])
    queue = Queue.objects.create(name="账单", slug="billing")
    join(chen, queue, on_duty=True)
    join(alice, queue, on_duty=True)
    ticket = ticket_services.ticket_open_for_customer(
        actor=sam,
        subject="退款没有到账",
        customer_message="我的订单 88123 的退款还没有到账。",
        customer_name="王芳",
        customer_email="wang@example.test",
        queue_id=queue.pk,
        priority="urgent",
    )
    # A timeline with an entry of every common kind, and notifications for chen, all written
    # by services (in no request's language: their words are chosen when a page shows them).
    ticket.refresh_from_db()
    if ticket.assignee_id != chen.pk:
        ticket = ticket_services.ticket_take(
            actor=chen, ticket_id=ticket.pk, expected_version=ticket.version
        )
    ticket = ticket_services.ticket_tags_set(
        actor=chen, ticket_id=ticket.pk, tags=["88123", "2026"], expected_version=ticket.version
    )
    ticket = ticket_services.ticket_status_set(
        actor=chen, ticket_id=ticket.pk, status="open", expected_version=ticket.version
    )
    ticket_services.ticket_note_add(
        actor=alice, ticket_id=ticket.pk, body="@chen 请看一下", expected_version=ticket.version
    )
    ticket_services.sla_evaluate(now=timezone.now() + dt.timedelta(days=3))
    payment = payment_capture(actor=None, amount=Money.parse("50.00", "USD"))
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="12.00", reason="商品破损")
    run = evals_services.eval_run_create(
        actor=chen, suite=suite_from_mapping(suite_dict(name="冒烟"))
    )
    run = evals_services.eval_run_execute(actor=chen, run_id=run.pk)
    trial = run.trials.order_by("pk").first()
    escalated, names = _escalated(queue, sam, alice, bob)
    finding, said = _finding(chen)
    data = {"wang", "example", "test"}  # the customer's e-mail address
    data |= names | said
    data.update(WORD.findall(payment.reference), re.findall(r"[A-Za-z]+", payment.reference))
    data.update(str(v) for v in run.trials.values_list("persona", flat=True).distinct())
    return {
        "chen": chen,
        "ticket": ticket,
        "refund": refund,
        "payment": payment,
        "run": run,
        "trial": trial,
        "escalated": escalated,
        "finding": finding,
        "stopped": _stopped_run(chen),
        "data": data,
    }


def _check_codes_stay_words(page: Any) -> None:
    """The verdict's check codes wrap at their underscores, not a few letters a line (at
    390 px the Chinese detail column had squeezed infrastructure_error_rate to eleven lines):
    no code cell is taller than its longest code's parts."""
    cells = page.locator("table.checks td.check-code")
    assert cells.count() >= 3
    for i in range(cells.count()):
        cell = cells.nth(i)
        parts = len(cell.inner_text().replace("_", "_ ").split())
        line = float(cell.evaluate("c => parseFloat(getComputedStyle(c).lineHeight) || 20"))
        # The text's own height (the row is as tall as its tallest cell).
        height = float(
            cell.evaluate(
                "c => { const r = document.createRange(); r.selectNodeContents(c);"
                " return r.getBoundingClientRect().height; }"
            )
        )
        assert height <= parts * line + 2, cell.inner_text()


@pytest.mark.parametrize("width", [1400, 390])
def test_a_chinese_browser_walks_the_main_pages_without_english_interface_text(
    browser: Any, live_server: Any, world: dict[str, Any], width: int, tmp_path: Path
) -> None:
    context = browser.new_context(
        base_url=live_server.url, locale="zh-CN", viewport={"width": width, "height": 900}
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    data: set[str] = world["data"]
    leftovers: dict[str, list[str]] = {}

    def check(name: str) -> None:
        _shoot(page, tmp_path, f"zh-{name}-{width}")
        left = _english_left(_ui_text(page), data)
        if left:
            leftovers[name] = left

    page.goto("/login/")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert page.locator("h1").inner_text() == "登录"
    check("login")
    page.fill("#id_username", "chen")
    page.fill("#id_password", "correct horse battery staple")
    page.click("main button[type=submit]")
    page.wait_for_url("**/login/verify/**")
    check("2fa")
    device = TOTPDevice.objects.get(user=world["chen"], confirmed=True)
    page.fill("#id_code", current_code(device))
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)
    check("home")
    pages = {
        "inbox": "/tickets/",
        "ticket": f"/tickets/{world['ticket'].pk}/",
        "notifications": "/tickets/notifications/",
        "approvals": "/payments/approvals/",
        "refund": f"/payments/refunds/{world['refund'].pk}/",
        "payment": f"/payments/{world['payment'].pk}/",
        "audit": "/audit/",
        "golive-runs": "/evals/",
        "golive-run": f"/evals/{world['run'].pk}/",
        # System notes, the AI agent's turns and a finding's card and details, stored as keys
        "escalated": f"/tickets/{world['escalated'].pk}/",
        "finding": f"/tickets/{world['finding'].pk}/",
        "golive-stopped": f"/evals/{world['stopped'].pk}/",
        "security": "/security/",
    }
    for name, url in pages.items():
        response = page.goto(url)
        assert response is not None and response.status == 200, (name, url)
        check(name)
        if name == "golive-run":
            _check_codes_stay_words(page)
    assert "收件箱" in page.inner_text("header")
    assert not leftovers, f"English interface text left: {leftovers}"
    context.close()


def test_the_header_switch_turns_the_ui_chinese_and_the_choice_follows_the_operator(
    browser: Any, live_server: Any, logged_in_page: Any, alice: Any, tmp_path: Path
) -> None:
    page = logged_in_page(alice)
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto("/tickets/")
    assert "Inbox" in page.inner_text("header")
    page.click("header button[name=language][value=zh-hans]")
    page.wait_for_load_state()
    assert page.url.endswith("/tickets/")
    assert "收件箱" in page.inner_text("header")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    _shoot(page, tmp_path, "zh-switched-inbox-390")
    alice.refresh_from_db()
    assert alice.language == "zh-hans"

    # Another browser, set to English, never saw the switch: after login it is Chinese.
    other = browser.new_context(base_url=live_server.url, locale="en-US")
    second = other.new_page()
    device = TOTPDevice.objects.get(user=alice, confirmed=True)
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
    second.goto("/login/")
    assert "Sign in" in second.inner_text("main")
    second.fill("#id_username", "alice")
    second.fill("#id_password", "correct horse battery staple")
    second.click("main button[type=submit]")
    second.wait_for_url("**/login/verify/**")
    assert "验证" in second.inner_text("main")
    second.fill("#id_code", current_code(device))
    second.click("main button[type=submit]")
    second.wait_for_url(lambda url: "/login/" not in url)
    assert "首页" in second.inner_text("header")
    second.click("header button[name=language][value=en]")
    second.wait_for_load_state()
    assert "Home" in second.inner_text("header")
    other.close()
