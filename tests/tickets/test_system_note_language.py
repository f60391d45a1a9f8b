# ruff: noqa: RUF001 -- the Chinese expected here is written with full-width punctuation.
"""The system notes of a ticket's conversation (a merge, a refund decision, a finding's details
and tool calls) and a finding's card read in the reader's language, not in the English they
were stored in; notes stored before keys existed are given theirs by migration 0015 when their
text is recognised exactly, and any other keeps reading as it was stored."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.utils import timezone, translation

from identity.models import Operator
from payments_sandbox.domain import Money
from payments_sandbox.services import payment_capture, refund_approve, refund_reject, refund_request
from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets import services
from tickets.models import Customer, Escalation, Message, MessageKind, Queue, Ticket
from tickets.notifications import post_system_note
from tickets.phrases import FINDING_CARD, NOTES

legacy = importlib.import_module("tickets.migrations.0015_system_note_and_card_keys_data")

pytestmark = pytest.mark.django_db


def _merged(
    make_ticket: Callable[..., Ticket], queue: Queue, sam: Operator
) -> tuple[Ticket, Ticket]:
    target = make_ticket(queue)
    source = make_ticket(queue, subject="Still no parcel", customer_message="Hello??")
    target.refresh_from_db()
    services.ticket_merge(
        actor=sam,
        source_id=source.pk,
        target_id=target.pk,
        expected_source_version=source.version,
        expected_target_version=target.version,
    )
    return target, source


def test_a_merge_note_stores_a_key_and_reads_in_each_readers_language(
    make_ticket: Callable[..., Ticket], queue: Queue, sam: Operator
) -> None:
    target, source = _merged(make_ticket, queue, sam)
    note = target.messages.get(kind=MessageKind.SYSTEM)
    assert note.body_key == "merged"
    assert note.body_params == {"actor": "Sam", "ticket": source.pk, "moved": 1}
    # The stored English copy (the API, search) is what the words read in English.
    assert note.body == f"Sam merged ticket #{source.pk} into this ticket (1 messages moved)."
    with translation.override("en"):
        assert note.body_text == note.body and note.author_text == "System"
    with translation.override("zh-hans"):
        assert note.body_text == f"Sam 将工单 #{source.pk} 合并到了本工单（移入 1 条消息）。"
        assert note.author_text == "系统"


def test_the_ticket_page_shows_the_merge_note_in_the_readers_language(
    make_ticket: Callable[..., Ticket], queue: Queue, sam: Operator
) -> None:
    target, source = _merged(make_ticket, queue, sam)
    sam.language = "zh-hans"
    sam.save(update_fields=["language"])
    page = verified_client(sam).get(f"/tickets/{target.pk}/").content.decode()
    assert f"将工单 #{source.pk} 合并到了本工单" in page
    assert "merged ticket" not in page


@pytest.mark.parametrize(
    ("decide", "reason", "english", "chinese"),
    [
        (refund_approve, "", "approved by Bob.", "已由 Bob 批准。"),
        (refund_reject, "Not ours", "rejected by Bob: Not ours", "已被 Bob 拒绝：Not ours"),
    ],
)
def test_a_refund_decision_note_on_the_ticket_reads_in_each_readers_language(
    make_ticket: Callable[..., Ticket],
    queue: Queue,
    alice: Operator,
    bob: Operator,
    decide: Callable[..., Any],
    reason: str,
    english: str,
    chinese: str,
) -> None:
    join(alice, queue)
    ticket = make_ticket(queue)
    payment = payment_capture(actor=None, amount=Money.parse("50.00", "USD"))
    refund = refund_request(
        actor=alice, payment_id=payment.pk, amount="20.00", reason="Damaged", ticket_id=ticket.pk
    )
    decide(actor=bob, refund_id=refund.pk, reason=reason)
    note = ticket.messages.get(kind=MessageKind.SYSTEM)
    assert (note.body_key or "").startswith("refund.")
    assert (note.body_params or {})["refund"] == refund.pk
    assert note.body == f"Refund #{refund.pk} of 20.00 USD {english}"
    with translation.override("zh-hans"):
        assert note.body_text == f"退款 #{refund.pk}（20.00 USD）{chinese}"


def test_a_plain_system_note_is_shown_as_it_was_written(
    make_ticket: Callable[..., Ticket], queue: Queue
) -> None:
    note = post_system_note(ticket_id=make_ticket(queue).pk, body="Synced from the CRM")
    assert note.body_key is None
    with translation.override("zh-hans"):
        assert note.body_text == "Synced from the CRM"


def test_every_note_and_finding_phrase_has_its_chinese(db: None) -> None:
    untranslated = []
    for key, phrase in {**NOTES, **FINDING_CARD}.items():
        with translation.override("en"):
            english = str(phrase.text)
        with translation.override("zh-hans"):
            if str(phrase.text) == english:
                untranslated.append(key)
    assert untranslated == []


# -- migration 0015 ------------------------------------------------------------------------


def _legacy_note(ticket: Ticket, body: str, author: str = "System") -> Message:
    return Message.objects.create(
        ticket=ticket,
        kind=MessageKind.SYSTEM,
        author_label=author,
        body=body,
        created_at=timezone.now(),
    )


def test_the_migration_gives_recognised_old_system_notes_their_keys(
    make_ticket: Callable[..., Ticket], queue: Queue
) -> None:
    ticket = make_ticket(queue)
    recognised = {
        "merged": _legacy_note(
            ticket, "Sam merged ticket #12 into this ticket (3 messages moved)."
        ),
        "refund.approved": _legacy_note(ticket, "Refund #4 of 20.00 USD approved by Bob."),
        "refund.rejected_because": _legacy_note(
            ticket, "Refund #5 of ¥1,200 rejected by Bob: Not ours: a duplicate"
        ),
        "tool_call": _legacy_note(
            ticket, 'Tool call: find_order({"order_id": "W1"})', author="AI agent"
        ),
        "finding": _legacy_note(
            ticket,
            "State diff: orders.W1.status: 'pending' != 'cancelled'\nNote: guard observed\n"
            "Source: /evals/runs/3/trials/17/",
            author="Go-live suite",
        ),
        "escalated": _legacy_note(
            ticket,
            "Escalated by the AI agent (争议). Reason: Charged twice\nSummary: Wants money back\n"
            "Customer wants: Refund it",
            author="AI agent",
        ),
    }
    # Look-alikes: left as they are.
    forged = [
        _legacy_note(ticket, "Sam merged ticket #12 into this ticket."),
        _legacy_note(ticket, "Refund #4 of 20.00 USD approved by Bob"),  # no full stop
        _legacy_note(ticket, "State diff: x\nSource: /evals/", author="Someone else"),
        _legacy_note(
            ticket,
            "Escalated by the AI agent (Not a category). Reason: r\nSummary: s\nCustomer wants: a",
            author="AI agent",
        ),
        _legacy_note(ticket, "Sam 将工单 #12 合并到了本工单（移入 3 条消息）。"),
    ]
    legacy.notes_forward(django_apps, None)
    for key, row in recognised.items():
        row.refresh_from_db()
        assert row.body_key == key, row.body
        with translation.override("en"):
            if key != "escalated":
                assert row.body_text == row.body
    with translation.override("en"):
        # Its category was worded in the language of the agent's request: now the reader's.
        assert recognised["escalated"].body_text.startswith(
            "Escalated by the AI agent (Dispute). Reason: Charged twice\n"
        )
    with translation.override("zh-hans"):
        assert recognised["merged"].body_text == "Sam 将工单 #12 合并到了本工单（移入 3 条消息）。"
        assert recognised["finding"].body_text == (
            "状态差异：orders.W1.status: 'pending' != 'cancelled'\n备注：guard observed\n"
            "来源：/evals/runs/3/trials/17/"
        )
        assert (recognised["escalated"].body_params or {})["category"] == "dispute"
        assert recognised["escalated"].body_text.startswith("由 AI 智能体升级（争议）。原因：")
        assert (recognised["refund.rejected_because"].body_params or {})["reason"] == (
            "Not ours: a duplicate"
        )
    for row in forged:
        row.refresh_from_db()
        assert row.body_key is None and row.body_text == row.body


def _finding_escalation(ticket: Ticket, sam: Operator, **texts: str) -> Escalation:
    values = {
        "reason": "Trial retail/t1/impatient/0 failed: wrong_state, ended by agent_stop.",
        "summary": "Run #3 (smoke, agent sandbox/reference); reward components: none.",
        "requested_action": "Review the failing trial and decide what to fix.",
    } | texts
    return Escalation.objects.create(
        ticket=ticket,
        category="agent_failure",
        transcript=[],
        created_by=sam,
        created_at=timezone.now(),
        **values,
    )


def test_the_migration_gives_old_finding_cards_their_values(
    make_ticket: Callable[..., Ticket], queue: Queue, sam: Operator
) -> None:
    card = _finding_escalation(make_ticket(queue), sam)
    agents = _finding_escalation(make_ticket(queue), sam, requested_action="Call the customer")
    legacy.cards_forward(django_apps, None)
    card.refresh_from_db()
    agents.refresh_from_db()
    assert card.card_key == "finding"
    assert card.card_params == {
        "trial": "retail/t1/impatient/0",
        "failure": "wrong_state",
        "termination": "agent_stop",
        "run": 3,
        "suite": "smoke",
        "agent": "sandbox/reference",
        "components": "",
    }
    with translation.override("en"):
        assert card.card == {
            "reason": card.reason,
            "summary": card.summary,
            "requested_action": card.requested_action,
        }
    with translation.override("zh-hans"):
        assert card.card["requested_action"] == "审阅未通过的试验，决定需要修复什么。"
        assert card.card["summary"].endswith("奖励分项：无。")
    # The AI agent's own words are not a finding's: kept as written, in every language.
    assert agents.card_key == ""
    with translation.override("zh-hans"):
        assert agents.card["requested_action"] == "Call the customer"


def test_the_go_live_simulated_customer_is_named_in_the_readers_language(db: None) -> None:
    simulated = Customer(name="Go-live simulated customer", external_id="evals-sandbox")
    namesake = Customer(name="Go-live simulated customer", external_id="crm-1")
    with translation.override("zh-hans"):
        assert simulated.name_text == "上线验收模拟客户"
        assert namesake.name_text == "Go-live simulated customer"  # a real customer's name
    with translation.override("en"):
        assert simulated.name_text == "Go-live simulated customer"


def test_a_customer_named_like_a_service_keeps_their_name_and_the_services_read_translated(
    make_ticket: Callable[..., Ticket], queue: Queue
) -> None:
    ticket = make_ticket(queue, customer_name="System")
    said = ticket.messages.get(kind=MessageKind.CUSTOMER)
    note = post_system_note(ticket_id=ticket.pk, body="x")
    with translation.override("zh-hans"):
        assert said.author_text == "System"  # a person's name
        assert note.author_text == "系统"


def test_the_api_words_a_system_note_in_the_requests_language(
    make_ticket: Callable[..., Ticket], queue: Queue, sam: Operator
) -> None:
    target, source = _merged(make_ticket, queue, sam)
    api = verified_client(sam, api=True)
    notes = {}
    for language in ("zh-Hans", "en"):
        body = api.get(f"/api/v1/tickets/{target.pk}", HTTP_ACCEPT_LANGUAGE=language).json()
        notes[language] = next(m["body"] for m in body["messages"] if m["kind"] == "system")
    assert notes["zh-Hans"] == f"Sam 将工单 #{source.pk} 合并到了本工单（移入 1 条消息）。"
    assert notes["en"] == f"Sam merged ticket #{source.pk} into this ticket (1 messages moved)."
