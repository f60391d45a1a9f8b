"""Ticket services: the change, the timeline row, the audit event, the notifications."""

from __future__ import annotations

import pytest
from django.core import mail

from backoffice.errors import Forbidden, NotFound, ValidationFailed
from identity.models import AuditEvent
from tests.tickets.conftest import join
from tickets import services
from tickets.models import Message, Notification, Ticket
from tickets.notifications import notify, post_system_note


@pytest.fixture
def ticket(alice, queue, make_ticket) -> Ticket:
    join(alice, queue, on_duty=True)
    return make_ticket(queue)


def fresh(ticket: Ticket) -> Ticket:
    ticket.refresh_from_db()
    return ticket


def test_create_stores_customer_message_routes_and_audits(ticket, alice) -> None:
    assert ticket.assignee == alice and not ticket.unrouted
    assert ticket.messages.get().kind == "customer"
    assert ticket.customer.email == "carla@example.test"
    event = AuditEvent.objects.get(action="ticket.create")
    assert event.target_id == str(ticket.pk)
    assert list(ticket.events.values_list("kind", flat=True)) == ["created", "assignee"]


def test_create_reuses_the_customer_with_the_same_email(queue, make_ticket) -> None:
    first = make_ticket(queue)
    second = make_ticket(queue, customer_email="CARLA@example.test")
    assert first.customer_id == second.customer_id


def test_agent_cannot_create_in_a_queue_they_do_not_work(alice, other_queue) -> None:
    with pytest.raises(Forbidden):
        services.ticket_open_for_customer(
            actor=alice,
            subject="x",
            customer_message="y",
            customer_name="C",
            queue_id=other_queue.pk,
        )


def test_reply_records_first_response_opens_and_audits(ticket, alice) -> None:
    message = services.ticket_reply(
        actor=alice, ticket_id=ticket.pk, body="On its way", expected_version=ticket.version
    )
    ticket = fresh(ticket)
    assert message.kind == "public_reply" and message.author == alice
    assert ticket.status == "open" and ticket.first_responded_at is not None
    assert ticket.version == 3  # created → routed → replied
    assert AuditEvent.objects.filter(action="ticket.reply", target_id=str(ticket.pk)).count() == 1


def test_empty_reply_is_rejected_and_changes_nothing(ticket, alice) -> None:
    with pytest.raises(ValidationFailed):
        services.ticket_reply(
            actor=alice, ticket_id=ticket.pk, body="  ", expected_version=ticket.version
        )
    assert fresh(ticket).version == ticket.version


def test_note_mention_notifies_and_emails_the_operator(
    ticket, alice, make_agent, queue, django_capture_on_commit_callbacks
) -> None:
    ben = make_agent("ben", queue)
    with django_capture_on_commit_callbacks(execute=True):
        services.ticket_note_add(
            actor=alice,
            ticket_id=ticket.pk,
            body="@ben can you check the carrier?",
            expected_version=ticket.version,
        )
    notification = Notification.objects.get(recipient=ben, kind="mention")
    assert f"#{ticket.pk}" in notification.title
    assert notification.emailed_at is not None
    assert [m.to for m in mail.outbox if "mentioned you" in m.subject] == [["ben@example.test"]]


def test_mention_of_someone_who_cannot_see_the_ticket_does_not_notify(
    ticket, alice, make_agent, other_queue
) -> None:
    make_agent("dan", other_queue)
    services.ticket_note_add(
        actor=alice, ticket_id=ticket.pk, body="@dan fyi", expected_version=ticket.version
    )
    assert not Notification.objects.filter(kind="mention").exists()


def test_note_edit_keeps_the_previous_text_and_notifies_only_new_mentions(
    ticket, alice, make_agent, queue
) -> None:
    ben, cat = make_agent("ben", queue), make_agent("cat", queue)
    note = services.ticket_note_add(
        actor=alice, ticket_id=ticket.pk, body="@ben first draft", expected_version=ticket.version
    )
    services.ticket_note_edit(
        actor=alice,
        ticket_id=ticket.pk,
        note_id=note.pk,
        body="@ben @cat second draft",
        expected_version=fresh(ticket).version,
    )
    note.refresh_from_db()
    assert note.body == "@ben @cat second draft" and note.edited_at is not None
    assert list(note.revisions.values_list("body", flat=True)) == ["@ben first draft"]
    assert Notification.objects.filter(recipient=ben, kind="mention").count() == 1
    assert Notification.objects.filter(recipient=cat, kind="mention").count() == 1


def test_only_the_author_or_a_supervisor_edits_a_note(
    ticket, alice, make_agent, queue, sam
) -> None:
    ben = make_agent("ben", queue)
    note = services.ticket_note_add(
        actor=alice, ticket_id=ticket.pk, body="mine", expected_version=ticket.version
    )
    with pytest.raises(Forbidden):
        services.ticket_note_edit(
            actor=ben,
            ticket_id=ticket.pk,
            note_id=note.pk,
            body="hijack",
            expected_version=fresh(ticket).version,
        )
    services.ticket_note_edit(
        actor=sam,
        ticket_id=ticket.pk,
        note_id=note.pk,
        body="fixed typo",
        expected_version=fresh(ticket).version,
    )
    assert Message.objects.get(pk=note.pk).body == "fixed typo"


def test_a_note_is_edited_only_through_its_own_ticket(ticket, alice, queue, make_ticket) -> None:
    # Alice may work both tickets; naming the other one must not reach this note.
    other = make_ticket(queue, subject="Another parcel")
    assert other.assignee == alice
    note = services.ticket_note_add(
        actor=alice, ticket_id=ticket.pk, body="original", expected_version=ticket.version
    )
    with pytest.raises(NotFound):
        services.ticket_note_edit(
            actor=alice,
            ticket_id=other.pk,
            note_id=note.pk,
            body="rewritten",
            expected_version=fresh(other).version,
        )
    note.refresh_from_db()
    assert note.body == "original" and note.edited_at is None
    assert not note.revisions.exists()
    assert not AuditEvent.objects.filter(action="ticket.note_edit").exists()


def test_agent_takes_an_unowned_ticket_of_their_queue(alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=False)
    ticket = make_ticket(queue)
    services.ticket_take(actor=alice, ticket_id=ticket.pk, expected_version=ticket.version)
    ticket = fresh(ticket)
    assert ticket.assignee == alice and not ticket.unrouted
    assert AuditEvent.objects.filter(action="ticket.take").count() == 1


def test_agent_cannot_take_or_reassign_a_ticket_someone_owns(ticket, make_agent, queue) -> None:
    ben = make_agent("ben", queue)
    with pytest.raises(Forbidden):
        services.ticket_take(actor=ben, ticket_id=ticket.pk, expected_version=ticket.version)
    with pytest.raises(Forbidden):
        services.ticket_reassign(
            actor=ben, ticket_id=ticket.pk, assignee_id=ben.pk, expected_version=ticket.version
        )
    assert fresh(ticket).assignee_id != ben.pk


def test_supervisor_reassigns_and_the_new_owner_is_notified(ticket, sam, make_agent, queue) -> None:
    ben = make_agent("ben", queue)
    services.ticket_reassign(
        actor=sam, ticket_id=ticket.pk, assignee_id=ben.pk, expected_version=ticket.version
    )
    assert fresh(ticket).assignee == ben
    assert Notification.objects.filter(recipient=ben, kind="assignment").exists()
    event = ticket.events.filter(kind="assignee").last()
    assert event.actor == sam and "was Alice" in event.summary
    assert AuditEvent.objects.filter(action="ticket.reassign").count() == 1


def test_assigning_to_someone_who_cannot_work_tickets_is_refused(ticket, sam, audrey) -> None:
    with pytest.raises(ValidationFailed):
        services.ticket_reassign(
            actor=sam, ticket_id=ticket.pk, assignee_id=audrey.pk, expected_version=ticket.version
        )


def test_outsider_gets_not_found_not_forbidden(ticket, olga, make_agent, other_queue) -> None:
    dan = make_agent("dan", other_queue)
    for actor in (olga, dan):
        with pytest.raises(NotFound):
            services.ticket_status_set(
                actor=actor, ticket_id=ticket.pk, status="open", expected_version=ticket.version
            )


def test_status_change_is_on_the_timeline_with_before_and_after(ticket, alice) -> None:
    services.ticket_status_set(
        actor=alice, ticket_id=ticket.pk, status="on_hold", expected_version=ticket.version
    )
    event = fresh(ticket).events.get(kind="status")
    assert (event.before, event.after, event.actor) == (
        {"status": "new"},
        {"status": "on_hold"},
        alice,
    )
    assert fresh(ticket).events.filter(kind="sla", summary="SLA paused").exists()


def test_a_closed_ticket_stays_closed(ticket, alice) -> None:
    services.ticket_status_set(
        actor=alice, ticket_id=ticket.pk, status="closed", expected_version=ticket.version
    )
    with pytest.raises(ValidationFailed):
        services.ticket_status_set(
            actor=alice, ticket_id=ticket.pk, status="open", expected_version=fresh(ticket).version
        )


def test_tags_are_normalised_and_changes_recorded(ticket, alice) -> None:
    services.ticket_tags_set(
        actor=alice,
        ticket_id=ticket.pk,
        tags=[" VIP ", "Refund", "vip"],
        expected_version=ticket.version,
    )
    assert sorted(fresh(ticket).tags.values_list("name", flat=True)) == ["refund", "vip"]
    event = ticket.events.get(kind="tags")
    assert event.after == {"tags": ["refund", "vip"]}


@pytest.mark.parametrize(
    "raw",
    [
        "<script>",
        "-vip",
        "_vip",
        " .vip",
        "vip\x00",
        "vi\x07p",
        "退款\u200b",  # a zero-width space hides in a copied tag
        "退款\u202e",  # right-to-left override
        "vip\U0001f600",
        "退款/退货",
        "x" * 51,
        "退" * 51,
    ],
)
def test_invalid_tag_is_rejected(ticket, alice, raw) -> None:
    with pytest.raises(ValidationFailed):
        services.ticket_tags_set(
            actor=alice, ticket_id=ticket.pk, tags=[raw], expected_version=ticket.version
        )
    assert not fresh(ticket).tags.exists()


def test_tags_in_any_script_are_stored_normalised(ticket, alice) -> None:
    """Chinese operators tag in Chinese; a full-width "VIP" (U+FF36 U+FF29 U+FF30) from a Chinese input method is
    the ASCII tag, and a decomposed "é" the composed one."""
    services.ticket_tags_set(
        actor=alice,
        ticket_id=ticket.pk,
        tags=[
            "退款",
            " 加急  处理 ",
            "\uff36\uff29\uff30",  # full-width VIP
            "vip",
            "Re\u0301clamation",
            "réclamation",
            "退" * 50,
        ],
        expected_version=ticket.version,
    )
    assert sorted(fresh(ticket).tags.values_list("name", flat=True)) == sorted(
        ["退款", "加急 处理", "vip", "réclamation", "退" * 50]
    )


def test_supervisor_merges_tickets_of_the_same_customer_keeping_both_histories(
    ticket, sam, alice, queue, make_ticket
) -> None:
    services.ticket_tags_set(
        actor=alice, ticket_id=ticket.pk, tags=["late"], expected_version=ticket.version
    )
    duplicate = make_ticket(queue, subject="Still no parcel", customer_message="Hello??")
    target = services.ticket_merge(
        actor=sam,
        source_id=duplicate.pk,
        target_id=ticket.pk,
        expected_source_version=duplicate.version,
        expected_target_version=fresh(ticket).version,
    )
    duplicate = fresh(duplicate)
    assert duplicate.status == "closed" and duplicate.merged_into_id == target.pk
    moved = target.messages.filter(merged_from=duplicate)
    assert [m.body for m in moved] == ["Hello??"]
    assert target.messages.filter(kind="system", body__contains=f"#{duplicate.pk}").exists()
    assert duplicate.events.filter(kind="created").exists()  # its timeline stays with it
    assert (
        duplicate.events.filter(kind="merge").exists()
        and target.events.filter(kind="merge").exists()
    )
    assert AuditEvent.objects.filter(action="ticket.merge").count() == 1


def test_merge_refuses_different_customers_and_agents(
    ticket, sam, alice, queue, make_ticket
) -> None:
    other = make_ticket(queue, customer_email="someone@example.test", customer_name="Someone")
    with pytest.raises(ValidationFailed):
        services.ticket_merge(
            actor=sam,
            source_id=other.pk,
            target_id=ticket.pk,
            expected_source_version=other.version,
            expected_target_version=ticket.version,
        )
    same = make_ticket(queue)
    with pytest.raises(Forbidden):
        services.ticket_merge(
            actor=alice,
            source_id=same.pk,
            target_id=ticket.pk,
            expected_source_version=fresh(same).version,
            expected_target_version=fresh(ticket).version,
        )
    assert fresh(same).merged_into_id is None


def test_bulk_update_changes_each_ticket_and_skips_stale_ones_with_a_reason(
    alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    tickets = [make_ticket(queue) for _ in range(3)]
    items = [(t.pk, fresh(t).version) for t in tickets]
    items[2] = (tickets[2].pk, 1)  # seen before it was routed: stale
    result = services.ticket_bulk_update(actor=alice, items=items, action="priority", value="high")
    assert result.updated == [tickets[0].pk, tickets[1].pk]
    assert "changed since you opened it" in result.skipped[tickets[2].pk]
    assert [fresh(t).priority for t in tickets] == ["high", "high", "normal"]
    assert AuditEvent.objects.filter(action="ticket.priority").count() == 2


def test_bulk_tag_adds_to_existing_tags(alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=True)
    ticket = make_ticket(queue, tags=["late"])
    services.ticket_bulk_update(
        actor=alice, items=[(ticket.pk, fresh(ticket).version)], action="tag", value="VIP"
    )
    assert sorted(fresh(ticket).tags.values_list("name", flat=True)) == ["late", "vip"]


def test_notify_and_system_note_helpers_email_only_after_commit(
    ticket, alice, django_capture_on_commit_callbacks
) -> None:
    version = fresh(ticket).version
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        note = post_system_note(ticket_id=ticket.pk, body="Refund approved by Bob")
        notification = notify(recipient=alice, kind="refund.approved", title="Refund approved")
        assert not mail.outbox  # nothing leaves before the transaction commits
    assert note.kind == "system" and fresh(ticket).version == version
    assert notification.recipient == alice and notification.read_at is None
    assert [m.subject for m in mail.outbox] == ["[Backoffice] Refund approved"]


def test_mark_all_read(ticket, alice) -> None:
    notify(recipient=alice, kind="x", title="one", email=False)
    assert services.notifications_mark_read(actor=alice) == 2  # + the routing assignment
    assert not alice.notifications.filter(read_at__isnull=True).exists()
