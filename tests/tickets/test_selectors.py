"""Inbox reads: views, filters, search, visibility, and a query count that never grows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from backoffice.errors import Forbidden, NotFound
from tests.tickets.conftest import join
from tickets import selectors, services
from tickets.models import Ticket


def ids(queryset) -> list[int]:
    return [t.pk for t in queryset]


def test_inbox_page_costs_the_same_queries_for_3_or_30_tickets(
    alice, queue, make_ticket, django_assert_num_queries
) -> None:
    join(alice, queue, on_duty=True, cap=100)
    for n in range(3):
        make_ticket(queue, tags=[f"t{n}", "shared"])
    alice.has_perm("tickets.work_tickets")  # warm the permission cache, as a request would

    def page() -> list[Ticket]:
        rows = list(selectors.ticket_list_for_inbox(operator=alice, view="queues")[:50])
        for ticket in rows:  # everything the inbox row renders
            _ = (
                ticket.customer.name,
                ticket.queue.name,
                str(ticket.assignee),
                ticket.escalation if hasattr(ticket, "escalation") else None,
            )
            _ = [tag.name for tag in ticket.tags.all()]
        return rows

    with django_assert_num_queries(2):  # tickets (+joins) and their tags
        assert len(page()) == 3
    for n in range(27):
        make_ticket(queue, tags=[f"x{n}"])
    with django_assert_num_queries(2):
        assert len(page()) == 30


def test_ticket_detail_query_count_does_not_grow_with_the_conversation(
    alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    ticket = make_ticket(queue)

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            t = selectors.ticket_get_for_operator(operator=alice, ticket_id=ticket.pk)
            for m in t.messages.all():
                _ = (m.display_author, list(m.revisions.all()), m.merged_from)
            _ = (list(t.events.all()), list(t.tags.all()))
        return len(ctx.captured_queries)

    count()  # warms the operator's permission cache, as the first access in a request does
    before = count()
    for n in range(10):
        t = Ticket.objects.get(pk=ticket.pk)
        services.ticket_note_add(
            actor=alice, ticket_id=t.pk, body=f"note {n}", expected_version=t.version
        )
    assert count() == before


def test_views_select_the_right_tickets(
    alice, sam, queue, other_queue, make_agent, make_ticket
) -> None:
    join(alice, queue, on_duty=True, cap=1)
    mine = make_ticket(queue)
    waiting = make_ticket(queue)  # alice is at capacity: unassigned
    elsewhere = make_ticket(other_queue)
    Ticket.objects.filter(pk=waiting.pk).update(sla_breached=True)
    assert ids(selectors.ticket_list_for_inbox(operator=alice, view="mine")) == [mine.pk]
    assert ids(selectors.ticket_list_for_inbox(operator=alice, view="unassigned")) == [waiting.pk]
    assert set(ids(selectors.ticket_list_for_inbox(operator=alice, view="queues"))) == {
        mine.pk,
        waiting.pk,
    }
    assert ids(selectors.ticket_list_for_inbox(operator=alice, view="breaching")) == [waiting.pk]
    assert set(ids(selectors.ticket_list_for_inbox(operator=sam, view="all"))) == {
        mine.pk,
        waiting.pk,
        elsewhere.pk,
    }
    with pytest.raises(Forbidden):
        selectors.ticket_list_for_inbox(operator=alice, view="all")


def test_resolved_tickets_leave_active_views_but_a_status_filter_finds_them(
    alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    ticket = make_ticket(queue)
    services.ticket_status_set(
        actor=alice,
        ticket_id=ticket.pk,
        status="resolved",
        expected_version=Ticket.objects.get(pk=ticket.pk).version,
    )
    assert ids(selectors.ticket_list_for_inbox(operator=alice, view="mine")) == []
    filters = selectors.InboxFilters(status=("resolved",))
    assert ids(selectors.ticket_list_for_inbox(operator=alice, view="mine", filters=filters)) == [
        ticket.pk
    ]


def test_filters_by_priority_queue_tag_and_assignee(
    sam, alice, queue, other_queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    urgent = make_ticket(queue, priority="urgent", tags=["VIP"])
    low = make_ticket(other_queue, priority="low")

    def listed(**kwargs) -> list[int]:
        return ids(
            selectors.ticket_list_for_inbox(
                operator=sam, view="all", filters=selectors.InboxFilters(**kwargs)
            )
        )

    assert listed(priority=("urgent",)) == [urgent.pk]
    assert listed(queue_id=other_queue.pk) == [low.pk]
    assert listed(tag="vip") == [urgent.pk]
    assert listed(assignee_id=alice.pk) == [urgent.pk]
    assert listed(unassigned=True) == [low.pk]


def test_search_matches_subjects_messages_and_ticket_numbers(
    sam, alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    by_subject = make_ticket(queue, subject="Invoice shows double charge")
    by_message = make_ticket(
        queue, subject="Question", customer_message="My voucher code was rejected"
    )
    services.ticket_note_add(
        actor=alice,
        ticket_id=by_subject.pk,
        body="carrier lost it",
        expected_version=Ticket.objects.get(pk=by_subject.pk).version,
    )

    def found(term: str) -> list[int]:
        return ids(selectors.ticket_list_for_inbox(operator=sam, view="all", search=term))

    assert found("invoice") == [by_subject.pk]
    assert found("voucher") == [by_message.pk]
    assert found("carrier") == [by_subject.pk]
    assert found(f"#{by_message.pk}") == [by_message.pk]
    assert found("nothing-like-this") == []


def test_sorting_by_priority_and_by_age(sam, queue, make_ticket) -> None:
    low = make_ticket(queue, priority="low")
    urgent = make_ticket(queue, priority="urgent")
    high = make_ticket(queue, priority="high")
    assert ids(selectors.ticket_list_for_inbox(operator=sam, view="all", sort="priority")) == [
        urgent.pk,
        high.pk,
        low.pk,
    ]
    assert ids(selectors.ticket_list_for_inbox(operator=sam, view="all", sort="oldest")) == [
        low.pk,
        urgent.pk,
        high.pk,
    ]
    assert (
        ids(selectors.ticket_list_for_inbox(operator=sam, view="all", sort="due"))[0] == urgent.pk
    )


def test_agents_see_their_queues_and_their_own_tickets_only(
    alice, sam, queue, other_queue, make_ticket
) -> None:
    join(alice, queue)
    elsewhere = make_ticket(other_queue)
    with pytest.raises(NotFound):
        selectors.ticket_get_for_operator(operator=alice, ticket_id=elsewhere.pk)
    services.ticket_reassign(
        actor=sam, ticket_id=elsewhere.pk, assignee_id=alice.pk, expected_version=elsewhere.version
    )
    assert (
        selectors.ticket_get_for_operator(operator=alice, ticket_id=elsewhere.pk).pk == elsewhere.pk
    )


def test_people_without_an_inbox_role_see_nothing(olga, audrey, queue, make_ticket) -> None:
    make_ticket(queue)
    for operator in (olga, audrey):
        assert ids(selectors.ticket_list_for_inbox(operator=operator, view="queues")) == []
