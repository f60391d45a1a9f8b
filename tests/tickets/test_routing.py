"""Routing: round-robin to on-duty members with spare capacity, oldest ticket first."""

from __future__ import annotations

import datetime as dt

import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from identity.models import AuditEvent
from tests.tickets.conftest import join
from tickets import services
from tickets.models import OperatorAvailability, Ticket

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def at(minutes: int) -> time_machine.travel:
    return time_machine.travel(T0 + dt.timedelta(minutes=minutes), tick=False)


def test_new_tickets_rotate_round_robin_between_on_duty_members(
    queue, make_agent, make_ticket
) -> None:
    ann, ben, cat = make_agent("ann", queue), make_agent("ben", queue), make_agent("cat", queue)
    owners = []
    for minute in range(6):
        with at(minute):
            owners.append(make_ticket(queue).assignee)
    assert owners == [ann, ben, cat, ann, ben, cat]


def test_least_recently_assigned_member_gets_the_next_ticket(
    queue, make_agent, make_ticket, sam
) -> None:
    ann, ben = make_agent("ann", queue), make_agent("ben", queue)
    with at(0):
        first = make_ticket(queue)  # → ann (never assigned)
    with at(1):
        second = make_ticket(queue)  # → ben
    with at(2):
        services.ticket_reassign(
            actor=sam, ticket_id=second.pk, assignee_id=ann.pk, expected_version=second.version
        )
    with at(3):
        third = make_ticket(queue)
    assert first.assignee == ann
    assert third.assignee == ben  # ann was assigned more recently (the reassignment)


def test_members_off_duty_or_at_capacity_are_skipped(queue, make_agent, make_ticket) -> None:
    ann = make_agent("ann", queue, cap=1)
    make_agent("ben", queue, on_duty=False)
    first = make_ticket(queue)
    second = make_ticket(queue)
    assert first.assignee == ann
    second.refresh_from_db()
    assert second.assignee is None and second.unrouted


def test_capacity_counts_active_tickets_in_every_queue(
    queue, other_queue, make_agent, make_ticket
) -> None:
    ann = make_agent("ann", queue, cap=2)
    join(ann, other_queue, on_duty=True, cap=2)
    assert make_ticket(other_queue).assignee == ann
    assert make_ticket(queue).assignee == ann
    assert make_ticket(queue).assignee is None


def test_queue_cap_applies_without_a_personal_override(queue, make_agent, make_ticket) -> None:
    queue.capacity_per_operator = 1
    queue.save()
    ann = make_agent("ann", queue)
    assert make_ticket(queue).assignee == ann
    assert make_ticket(queue).assignee is None


def test_unrouted_tickets_route_oldest_first_when_someone_goes_on_duty(
    queue, make_agent, make_ticket
) -> None:
    ann = make_agent("ann", queue, on_duty=False, cap=2)
    with at(0):
        oldest = make_ticket(queue)
    with at(1):
        middle = make_ticket(queue)
    with at(2):
        newest = make_ticket(queue)
    assert Ticket.objects.filter(unrouted=True).count() == 3
    with at(3):
        routed = services.operator_duty_set(actor=ann, on_duty=True)
    assert [r.ticket_id for r in routed] == [oldest.pk, middle.pk]
    newest.refresh_from_db()
    assert newest.unrouted and newest.assignee is None
    assert AuditEvent.objects.filter(action="operator.duty").count() == 1


def test_resolving_a_ticket_frees_capacity_for_a_waiting_one(
    queue, make_agent, make_ticket
) -> None:
    ann = make_agent("ann", queue, cap=1)
    held = make_ticket(queue)
    waiting = make_ticket(queue)
    assert waiting.assignee is None
    held.refresh_from_db()
    services.ticket_status_set(
        actor=ann, ticket_id=held.pk, status="resolved", expected_version=held.version
    )
    waiting.refresh_from_db()
    assert waiting.assignee == ann and not waiting.unrouted
    assert waiting.events.filter(kind="assignee", actor_label="Routing").exists()
    assert ann.notifications.filter(kind="assignment", title__contains=f"#{waiting.pk}").exists()


def test_the_sweep_routes_what_event_driven_routing_missed(queue, make_agent, make_ticket) -> None:
    ann = make_agent("ann", queue, on_duty=False)
    ticket = make_ticket(queue)
    # Someone flipped the flag outside the service (e.g. an admin in the database).
    OperatorAvailability.objects.filter(operator=ann).update(on_duty=True)
    routed = services.tickets_route_unrouted()
    ticket.refresh_from_db()
    assert [r.ticket_id for r in routed] == [ticket.pk] and ticket.assignee == ann
    assert AuditEvent.objects.filter(action="ticket.route_sweep").count() == 1


def test_the_sweep_writes_no_audit_event_when_nothing_moves(queue, make_agent, make_ticket) -> None:
    make_ticket(queue)
    assert services.tickets_route_unrouted() == []
    assert not AuditEvent.objects.filter(action="ticket.route_sweep").exists()


def test_service_principals_and_inactive_members_never_get_tickets(
    queue, make_agent, make_ticket
) -> None:
    ann = make_agent("ann", queue)
    ann.is_active = False
    ann.save()
    assert make_ticket(queue).assignee is None


def test_a_new_ticket_goes_in_already_owned_behind_the_older_waiting_ones(
    queue, make_agent, make_ticket
) -> None:
    ann = make_agent("ann", queue, on_duty=False, cap=2)
    with at(0):
        waiting = make_ticket(queue)
    assert waiting.unrouted
    OperatorAvailability.objects.filter(operator=ann).update(on_duty=True)  # no routing pass
    with at(1), CaptureQueriesContext(connection) as captured:
        new = make_ticket(queue, subject="Second")
    waiting.refresh_from_db()
    # The older waiting ticket took the first slot, the new one the next; both owned.
    assert waiting.assignee == ann and new.assignee == ann and not new.unrouted
    assert Ticket.objects.get(pk=new.pk).assignee == ann
    # Inserted owned: no claim UPDATE of the new ticket after its INSERT.
    updates = [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].startswith('UPDATE "tickets_ticket"')
        and f'"tickets_ticket"."id" = {new.pk}' in q["sql"]
    ]
    assert updates == []
    kinds = list(new.events.order_by("version").values_list("kind", "version"))
    assert kinds == [("created", 1), ("assignee", 2)]
