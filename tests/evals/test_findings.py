# ruff: noqa: RUF001 -- the Chinese expected here is written with full-width punctuation.
"""A failing trial sent to the inbox: who owns it, who opens it, how it reads, what it takes."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from backoffice.errors import ValidationFailed
from evals import services
from evals.models import EvalRun, TrialOutcome, TrialResult
from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets import services as ticket_services
from tickets.models import MessageKind, Queue

pytestmark = pytest.mark.django_db


@pytest.fixture
def failing_run(rita, make_suite) -> EvalRun:
    suite = make_suite(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    run = services.eval_run_create(actor=rita, suite=suite)
    return services.eval_run_execute(actor=rita, run_id=run.pk)


def _failing_trial(run: EvalRun) -> TrialResult:
    trial = TrialResult.objects.filter(run=run).exclude(outcome=TrialOutcome.PASS).first()
    assert trial is not None
    return trial


def test_with_nobody_on_duty_the_release_manager_who_sent_it_owns_it_and_opens_it(
    rita, failing_run
) -> None:
    trial = _failing_trial(failing_run)
    ticket = services.eval_trial_ticket_create(actor=rita, trial_id=trial.pk)
    ticket.refresh_from_db()
    assert ticket.assignee == rita and not ticket.unrouted
    client = verified_client(rita)
    page = client.get(reverse("tickets:detail", args=[ticket.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    trial_url = reverse("evals:trial_detail", args=[failing_run.pk, trial.pk])
    assert f'<a href="{trial_url}">' in html  # the ticket links the trial
    assert "Reported by" in html and "Agent failure" in html
    assert 'data-testid="notes-only"' in html and "reply-form" not in html
    # It is in Rita's own inbox.
    assert f"/tickets/{ticket.pk}/" in client.get("/tickets/?view=mine").content.decode()


def test_the_conversation_reads_turn_by_turn_with_every_tool_call(rita, failing_run) -> None:
    trial = _failing_trial(failing_run)
    ticket = services.eval_trial_ticket_create(actor=rita, trial_id=trial.pk)
    assert trial.trajectory is not None
    messages = trial.trajectory["messages"][1:]
    kinds = list(ticket.messages.values_list("kind", flat=True))
    said = [m for m in messages if m["role"] in ("user", "assistant") and m.get("content")]
    calls = [c for m in messages for c in m.get("tool_calls") or []]
    results = [m for m in messages if m["role"] == "tool" and m.get("content")]
    assert kinds.count(MessageKind.CUSTOMER) + kinds.count(MessageKind.AI_AGENT) == len(said)
    assert calls and kinds.count(MessageKind.SYSTEM) == 1 + len(calls) + len(results)
    # Nothing cut at a fixed number of lines: the last turn of a long trial is there.
    last = said[-1]["content"].strip()
    assert ticket.messages.filter(body=last).exists()


def test_a_public_reply_to_the_simulated_customer_is_refused_even_for_a_supervisor(
    rita, sam, failing_run
) -> None:
    ticket = services.eval_trial_ticket_create(actor=rita, trial_id=_failing_trial(failing_run).pk)
    ticket.refresh_from_db()
    with pytest.raises(ValidationFailed, match="simulated"):
        ticket_services.ticket_reply(
            actor=sam, ticket_id=ticket.pk, body="Hello", expected_version=ticket.version
        )
    note = ticket_services.ticket_note_add(
        actor=rita,
        ticket_id=ticket.pk,
        body="Fix the confirmation step",
        expected_version=ticket.version,
    )
    assert note.kind == MessageKind.INTERNAL_NOTE


def test_routed_to_someone_on_duty_it_still_opens_for_the_one_who_sent_it(
    rita, alice, audrey, failing_run
) -> None:
    queue = Queue.objects.create(name="Go-live findings", slug="go-live")
    join(alice, queue, on_duty=True)
    ticket = services.eval_trial_ticket_create(actor=rita, trial_id=_failing_trial(failing_run).pk)
    ticket.refresh_from_db()
    assert ticket.assignee == alice
    assert verified_client(rita).get(f"/tickets/{ticket.pk}/").status_code == 200
    # An auditor, who did not send it and works no queue, does not see it.
    assert verified_client(audrey).get(f"/tickets/{ticket.pk}/").status_code == 404


def test_its_card_details_and_tool_calls_read_in_the_readers_language(rita, failing_run) -> None:
    trial = _failing_trial(failing_run)
    ticket = services.eval_trial_ticket_create(actor=rita, trial_id=trial.pk)
    escalation = ticket.escalation
    assert escalation.card_key == "finding"
    assert escalation.card_params["trial"] == trial.key and escalation.card_params["run"] == (
        failing_run.pk
    )
    details = ticket.messages.get(author_label="Go-live suite")
    assert details.body_key == "finding"
    trial_url = reverse("evals:trial_detail", args=[failing_run.pk, trial.pk])
    assert (details.body_params or {})["source"] == trial_url
    call = ticket.messages.filter(body_key="tool_call").first()
    assert call is not None
    # The stored English copies are what the words read in English.
    with translation.override("en"):
        assert (
            escalation.card["requested_action"]
            == escalation.requested_action
            == ("Review the failing trial and decide what to fix.")
        )
        assert escalation.card["reason"] == escalation.reason
        assert details.body_text == details.body and details.body.endswith(f"Source: {trial_url}")
        assert call.body_text == call.body and call.body.startswith("Tool call: ")
    rita.language = "zh-hans"
    rita.save(update_fields=["language"])
    html = verified_client(rita).get(reverse("tickets:detail", args=[ticket.pk])).content.decode()
    assert "审阅未通过的试验，决定需要修复什么。" in html
    assert f"试验 {trial.key} 未通过" in html
    assert f'来源：<a href="{trial_url}">' in html  # still a link
    assert "工具调用：" in html and "上线验收套件" in html and "AI 智能体" in html
    for english in ("Review the failing", "Source:", "Tool call:", "Go-live suite", "ended by"):
        assert english not in html, english


@pytest.mark.parametrize(
    ("site_language", "reader_language", "queue_name", "subject_start"),
    [
        ("en", "zh-hans", "Go-live findings", "Go-live run #"),
        ("zh-hans", "en", "上线验收发现", "上线验收运行 #"),
    ],
)
def test_the_queue_and_subject_are_written_in_the_sites_language_not_the_senders(
    rita, failing_run, settings, site_language, reader_language, queue_name, subject_start
) -> None:
    settings.LANGUAGE_CODE = site_language
    trial = _failing_trial(failing_run)
    with translation.override(reader_language):
        ticket = services.eval_trial_ticket_create(actor=rita, trial_id=trial.pk)
    ticket.refresh_from_db()
    assert ticket.queue.name == queue_name
    assert ticket.subject.startswith(subject_start)
    assert trial.key in ticket.subject
