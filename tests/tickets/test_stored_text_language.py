# ruff: noqa: RUF001 -- the Chinese expected here is written with full-width punctuation.
"""What the inbox stores for people to read later — timeline entries, notification titles,
escalation subjects — reads in the reader's language, not in the language of whoever (or
whatever worker) wrote it; rows written before keys existed still read as they were stored."""

from __future__ import annotations

import datetime as dt
import importlib
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.core import mail
from django.utils import timezone, translation

from identity.models import Operator
from tests.conftest import make_service_token, token_client, verified_client
from tests.tickets.conftest import join
from tickets import services
from tickets.models import Escalation, Notification, Queue, Ticket, TicketEvent
from tickets.phrases import EVENTS
from tickets.tasks import notification_email_send

legacy = importlib.import_module("tickets.migrations.0012_event_and_notification_keys_data")
LATIN = re.compile(r"[A-Za-z]{3,}")


def _worked(ticket: Ticket, alice: Operator, sam: Operator) -> Ticket:
    """Status, priority and tags changed: a timeline of the common kinds."""
    ticket.refresh_from_db()
    ticket = services.ticket_status_set(
        actor=alice, ticket_id=ticket.pk, status="open", expected_version=ticket.version
    )
    ticket = services.ticket_priority_set(
        actor=alice, ticket_id=ticket.pk, priority="urgent", expected_version=ticket.version
    )
    return services.ticket_tags_set(
        actor=alice, ticket_id=ticket.pk, tags=["vip"], expected_version=ticket.version
    )


def test_timeline_entries_store_a_key_and_read_in_each_readers_language(
    make_ticket: Callable[..., Ticket], queue: Queue, alice: Operator, sam: Operator
) -> None:
    join(alice, queue, on_duty=True)
    ticket = _worked(make_ticket(queue), alice, sam)
    events = list(TicketEvent.objects.filter(ticket=ticket).order_by("id"))
    assert [e.summary_key for e in events] == [
        "created",
        "routed",
        "status",
        "priority",
        "sla_recalculated",
        "tags_added",
    ]
    status = events[2]
    assert status.summary_params == {"old": "new", "new": "open"}
    # The stored English copy is what the words read in English.
    assert status.summary == "Status New → Open"
    with translation.override("en"):
        assert [e.summary_text for e in events] == [e.summary for e in events]
    with translation.override("zh-hans"):
        assert status.summary_text == "状态 新建 → 处理中"
        assert events[0].summary_text == "创建于 Billing，优先级 普通"
        assert events[1].actor_text == "自动分配"
        # No English word left but the data (the queue's name, the tag, the owner's name).
        words = {w for e in events for w in LATIN.findall(e.summary_text)}
        assert words <= {"Billing", "vip", "Alice", "SLA"}, words


def test_the_ticket_page_and_the_api_word_the_timeline_in_the_readers_language(
    make_ticket: Callable[..., Ticket], queue: Queue, alice: Operator, sam: Operator
) -> None:
    join(alice, queue, on_duty=True)
    ticket = _worked(make_ticket(queue), alice, sam)
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    page = verified_client(alice).get(f"/tickets/{ticket.pk}/").content.decode()
    assert "状态 新建 → 处理中" in page and "Status New" not in page
    assert "优先级 普通 → 紧急" in page

    english = verified_client(sam).get(f"/tickets/{ticket.pk}/").content.decode()
    assert "Status New → Open" in english and "Priority Normal → Urgent" in english

    body = (
        verified_client(sam, api=True)
        .get(f"/api/v1/tickets/{ticket.pk}", HTTP_ACCEPT_LANGUAGE="zh-Hans")
        .json()
    )
    status = next(e for e in body["events"] if e["summary_key"] == "status")
    assert status["summary"] == "状态 新建 → 处理中"
    assert status["summary_params"] == {"old": "new", "new": "open"}


def test_a_row_without_a_key_or_with_an_unknown_one_shows_its_stored_text(
    make_ticket: Callable[..., Ticket], queue: Queue
) -> None:
    ticket = make_ticket(queue)
    now = timezone.now()
    rows = [
        TicketEvent(ticket=ticket, kind="status", actor_label="Ops bot", summary="Legacy words"),
        TicketEvent(
            ticket=ticket, kind="status", actor_label="x", summary="Future", summary_key="later"
        ),
        # A known key whose parameters no longer fit its phrase.
        TicketEvent(
            ticket=ticket, kind="status", actor_label="x", summary="Kept", summary_key="routed"
        ),
    ]
    for row in rows:
        row.version, row.created_at = 1, now
    with translation.override("zh-hans"):
        assert [r.summary_text for r in rows] == ["Legacy words", "Future", "Kept"]
        assert rows[0].actor_text == "Ops bot"


def test_a_name_holding_format_characters_is_shown_as_data_not_as_a_format(
    make_ticket: Callable[..., Ticket], sam: Operator
) -> None:
    queue = Queue.objects.create(name="100% %(priority)s %s", slug="odd")
    ticket = make_ticket(queue)
    created = TicketEvent.objects.get(ticket=ticket, summary_key="created")
    assert created.summary == "Created in 100% %(priority)s %s with priority Normal"
    with translation.override("zh-hans"):
        assert created.summary_text == "创建于 100% %(priority)s %s，优先级 普通"


def test_every_timeline_phrase_has_its_chinese(db: None) -> None:
    with translation.override("zh-hans"):
        untranslated = []
        for key, phrase in EVENTS.items():
            with translation.override("en"):
                english = str(phrase.text)
            if str(phrase.text) == english:
                untranslated.append(key)
    assert untranslated == []


def _breached(make_ticket: Callable[..., Ticket], queue: Queue, owner: Operator) -> Notification:
    join(owner, queue, on_duty=True)
    make_ticket(queue, priority="urgent")
    mail.outbox.clear()
    services.sla_evaluate(now=timezone.now() + dt.timedelta(days=3))
    return Notification.objects.get(recipient=owner, kind="sla_breach")


def test_an_sla_notification_reads_and_is_mailed_in_the_recipients_language(
    make_ticket: Callable[..., Ticket], queue: Queue, alice: Operator
) -> None:
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    notification = _breached(make_ticket, queue, alice)
    ticket = Ticket.objects.get(assignee=alice)
    due = f"{ticket.sla_next_due_at:%Y-%m-%d %H:%M}"
    assert notification.title_key == "sla_breached"
    assert notification.title == f"SLA breached: ticket #{ticket.pk} (due {due} UTC)"
    assert notification.body == ticket.subject
    page = verified_client(alice).get("/tickets/notifications/").content.decode()
    assert f"SLA 已超时：工单 #{ticket.pk}（截止 {due} UTC）" in page
    # Sent by a worker whose active language is English: the recipient's choice wins.
    with translation.override("en"):
        assert notification_email_send(notification.pk) is True
    assert mail.outbox[-1].subject == f"[后台] SLA 已超时：工单 #{ticket.pk}（截止 {due} UTC）"


def test_an_operator_without_a_language_gets_the_mail_in_the_site_default(
    make_ticket: Callable[..., Ticket], queue: Queue, alice: Operator
) -> None:
    notification = _breached(make_ticket, queue, alice)
    with translation.override("zh-hans"):
        assert notification_email_send(notification.pk) is True
    assert mail.outbox[-1].subject.startswith("[Backoffice] SLA breached: ticket #")


def test_an_escalations_subject_is_the_agents_summary_in_the_conversations_language(
    queue: Queue, alice: Operator
) -> None:
    join(alice, queue, on_duty=True)
    _, raw = make_service_token(["escalations:create", "tickets:read"])
    payload: dict[str, Any] = {
        "customer": {"name": "王芳", "email": "wang@example.test"},
        "category": "dispute",
        "reason": "客户对扣款有异议。",
        "summary": "订单 1001 被重复扣款，要求退还重复的款项。",
        "transcript": [{"role": "customer", "content": "你们扣了我两次钱！"}],
        "requested_action": "退还重复扣款",
        "queue": "billing",
    }
    response = token_client(raw).post(
        "/api/v1/escalations",
        payload,
        format="json",
        HTTP_IDEMPOTENCY_KEY="esc-zh",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 201, response.content
    ticket = Ticket.objects.get(pk=response.json()["ticket_id"])
    assert ticket.subject == "订单 1001 被重复扣款，要求退还重复的款项。"


# The data migration: old rows get keys only when their stored English is recognised exactly.


def _legacy_event(ticket: Ticket, summary: str, **values: Any) -> TicketEvent:
    return TicketEvent.objects.create(
        ticket=ticket,
        kind=values.pop("kind", "status"),
        actor_label="Alice",
        summary=summary,
        version=1,
        created_at=timezone.now(),
        **values,
    )


def test_the_migration_gives_recognised_old_timeline_rows_their_keys(
    make_ticket: Callable[..., Ticket], queue: Queue
) -> None:
    ticket = make_ticket(queue)
    TicketEvent.objects.filter(ticket=ticket).delete()
    recognised = {
        "status": _legacy_event(
            ticket, "Status New → Open", before={"status": "new"}, after={"status": "open"}
        ),
        "reassigned_was": _legacy_event(
            ticket,
            "Reassigned to Bob (was Alice)",
            before={"assignee_name": "Alice"},
            after={"assignee_name": "Bob"},
        ),
        "tags_changed": _legacy_event(
            ticket,
            "Tags: added b, c; removed a",
            before={"tags": ["a"]},
            after={"tags": ["b", "c"]},
        ),
        "sla_breached": _legacy_event(ticket, "SLA breached (due 2026-01-02 03:04 UTC)"),
        "merged_into": _legacy_event(ticket, "Merged into #12"),
        "created": _legacy_event(
            ticket, "Created in Billing with priority Normal", after={"priority": "normal"}
        ),
        "customer_wrote": _legacy_event(ticket, "Customer wrote"),
    }
    # Look-alikes the stored values do not back: left as they are.
    forged = [
        _legacy_event(ticket, "Status Open → Closed"),
        _legacy_event(ticket, "Assigned to Mallory", after={"assignee_name": "Alice"}),
        _legacy_event(ticket, "Tags: added x", before={"tags": []}, after={"tags": ["y"]}),
        _legacy_event(ticket, "状态 新建 → 处理中"),
    ]
    legacy.events_forward(django_apps, None)
    for key, row in recognised.items():
        row.refresh_from_db()
        assert row.summary_key == key, row.summary
        with translation.override("en"):
            assert row.summary_text == row.summary
    with translation.override("zh-hans"):
        recognised["status"].refresh_from_db()
        assert recognised["status"].summary_text == "状态 新建 → 处理中"
    for row in forged:
        row.refresh_from_db()
        assert row.summary_key == "" and row.summary_text == row.summary


def test_the_migration_rewords_old_notifications_and_escalation_subjects(
    make_ticket: Callable[..., Ticket], queue: Queue, alice: Operator, sam: Operator
) -> None:
    ticket = make_ticket(queue)
    old = Notification.objects.create(
        recipient=alice,
        kind="sla_breach",
        title=f"SLA breached: ticket #{ticket.pk}",
        body="Parcel never arrived\nDue 2026-01-02 03:04 UTC.",
        created_at=timezone.now(),
    )
    odd = Notification.objects.create(
        recipient=alice,
        kind="refund.approved",
        title="Refund #3 approved",
        created_at=old.created_at,
    )
    legacy.notifications_forward(django_apps, None)
    old.refresh_from_db()
    odd.refresh_from_db()
    assert old.title_key == "sla_breached" and old.body == "Parcel never arrived"
    assert old.title_params == {"ticket": ticket.pk, "due": "2026-01-02 03:04"}
    with translation.override("zh-hans"):
        assert old.title_text == f"SLA 已超时：工单 #{ticket.pk}（截止 2026-01-02 03:04 UTC）"
    assert odd.title_key == "" and odd.title_text == "Refund #3 approved"

    escalated = make_ticket(queue, subject="Dispute: Charged twice.")
    kept = make_ticket(queue, subject="Dispute: something else")
    for t in (escalated, kept):
        Escalation.objects.create(
            ticket=t,
            category="dispute",
            reason="r",
            summary="Charged twice.",
            transcript=[],
            requested_action="a",
            created_by=sam,
            created_at=timezone.now(),
        )
    legacy.subjects_forward(django_apps, None)
    escalated.refresh_from_db()
    kept.refresh_from_db()
    assert escalated.subject == "Charged twice."
    assert kept.subject == "Dispute: something else"


@pytest.mark.parametrize(
    "title",
    [
        "Bob assigned ticket #4 to you",
        "Ticket #4 assigned to you",
        "Refund #3 of $12.00 approved by Bob",
        "Refund #3 of ¥1,200 rejected by Bob",
    ],
)
def test_the_migration_reads_back_assignment_titles(title: str) -> None:
    found = legacy.recognise_notification(title, "Subject")
    assert found is not None
    key, params, body = found
    assert legacy.NOTIFICATION_ENGLISH[key](params) == title and body == "Subject"
