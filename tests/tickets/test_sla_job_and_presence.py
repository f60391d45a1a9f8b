"""The SLA beat job, presence, and the beat schedule."""

from __future__ import annotations

import datetime as dt

import time_machine
from django.conf import settings
from django.core import mail

from identity.models import AuditEvent
from tests.tickets.conftest import join
from tickets import services
from tickets.models import Notification, Ticket

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def at(minutes: float) -> time_machine.travel:
    return time_machine.travel(T0 + dt.timedelta(minutes=minutes), tick=False)


def test_near_breach_then_breach_flag_notify_and_email_the_owner_once_each(
    alice, queue, make_ticket, django_capture_on_commit_callbacks
) -> None:
    join(alice, queue, on_duty=True)
    with at(0):
        ticket = make_ticket(queue, priority="urgent")  # first response due in 30 min
    with at(10):
        assert services.sla_evaluate() == []
    mail.outbox.clear()
    with at(16), django_capture_on_commit_callbacks(execute=True):
        changes = services.sla_evaluate()
    assert [(c.ticket_id, c.state) for c in changes] == [(ticket.pk, "near_breach")]
    with at(17):
        assert services.sla_evaluate() == []  # no repeat
    with at(31), django_capture_on_commit_callbacks(execute=True):
        assert [c.state for c in services.sla_evaluate()] == ["breached"]
    ticket.refresh_from_db()
    assert ticket.sla_breached and not ticket.sla_near_breach
    kinds = list(Notification.objects.filter(recipient=alice).values_list("kind", flat=True))
    assert sorted(kinds) == ["assignment", "sla_breach", "sla_near_breach"]
    assert len([m for m in mail.outbox if "SLA" in m.subject]) == 2
    assert ticket.events.filter(kind="sla", summary__startswith="SLA breached").exists()
    assert AuditEvent.objects.filter(action="ticket.sla_evaluate").count() == 2


def test_paused_tickets_do_not_breach(alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=True)
    with at(0):
        ticket = make_ticket(queue, priority="urgent")
    with at(1):
        services.ticket_status_set(
            actor=alice,
            ticket_id=ticket.pk,
            status="on_hold",
            expected_version=Ticket.objects.get(pk=ticket.pk).version,
        )
    with at(500):
        assert services.sla_evaluate() == []


def test_a_reply_clears_a_breached_first_response(alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=True)
    with at(0):
        ticket = make_ticket(queue, priority="urgent")
    with at(40):
        services.sla_evaluate()
        services.ticket_reply(
            actor=alice,
            ticket_id=ticket.pk,
            body="Sorry!",
            expected_version=Ticket.objects.get(pk=ticket.pk).version,
        )
    ticket.refresh_from_db()
    assert not ticket.sla_breached and ticket.sla_next_due_at == ticket.resolution_due_at


def test_presence_lists_others_seen_in_the_last_minute(
    alice, sam, make_agent, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    ben = make_agent("ben", queue)
    ticket = make_ticket(queue)
    with at(0):
        assert services.presence_touch(actor=alice, ticket_id=ticket.pk) == []
        services.presence_touch(actor=sam, ticket_id=ticket.pk)
    with at(0.5):
        assert services.presence_touch(actor=ben, ticket_id=ticket.pk) == [alice, sam]
    with at(1.2):
        assert services.presence_touch(actor=alice, ticket_id=ticket.pk) == [ben]


def test_beat_schedule_runs_sla_evaluation_every_minute_and_the_routing_sweep() -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert schedule["tickets-sla-evaluate"]["task"] == "tickets.tasks.sla_evaluate_task"
    assert schedule["tickets-sla-evaluate"]["schedule"] == 60.0
    assert schedule["tickets-routing-sweep"]["task"] == "tickets.tasks.routing_sweep_task"


def test_the_beat_tasks_call_the_services(alice, queue, make_ticket) -> None:
    from tickets.tasks import routing_sweep_task, sla_evaluate_task

    join(alice, queue, on_duty=False)
    make_ticket(queue)
    services.operator_duty_set(actor=alice, on_duty=True)
    assert routing_sweep_task.delay().get() == 0
    assert sla_evaluate_task.delay().get() == 0
