"""The one insert behind every kind of new ticket (an operator's for a customer, the AI
agent's escalation, a go-live finding): internal to tickets' services. Each kind has its own
public service, named for what it opens, which validates, writes what is its own (the first
message, the escalation record, the finding's transcript) and audits."""

from __future__ import annotations

import dataclasses
import datetime as dt

from django.utils.translation import gettext

from backoffice.errors import ValidationFailed
from identity.models import Operator
from tickets import routing, sla
from tickets.models import Customer, Priority, Queue, Ticket, TicketEvent, TicketEventKind
from tickets.services import _common as common
from tickets.services import tags as tagging


@dataclasses.dataclass(frozen=True)
class NewTicket:
    ticket: Ticket
    routed: list[routing.Routed]  # every ticket the routing pass assigned, this one last
    owner: routing.Routed | None  # this ticket's owner, None when it waits unrouted


def insert_ticket(
    *,
    actor: Operator | None,
    subject: str,
    customer: Customer,
    queue: Queue,
    priority: str,
    channel: str,
    status: str,
    tags: list[str],
    now: dt.datetime,
    route: bool = True,
    queue_locked: bool = False,
    targets: sla.Targets | None = None,
) -> NewTicket:
    """Insert a ticket with its SLA clocks started and its creation on the timeline, routed
    as it goes in; the caller audits. Runs inside the caller's transaction.

    Routing (unless `route=False`, for a ticket its creator keeps): the queue's older
    waiting tickets take the free slots first (routing.route_queue_for_new), then the new
    ticket takes the next one and is inserted already assigned, at version 2, its timeline
    holding both the creation (version 1) and routing's assignment (version 2), as if it had
    been inserted and then claimed — no claim UPDATE. `queue_locked`: the caller already
    read the queue row FOR UPDATE. `targets`: the queue's SLA targets for this priority
    when the caller already read them (else one query here)."""
    subject = _checked(subject, priority)
    routed, slot = (
        routing.route_queue_for_new(queue.pk, now=now, queue_locked=queue_locked)
        if route
        else ([], None)
    )
    ticket = _unsaved_ticket(
        subject=subject,
        customer=customer,
        queue=queue,
        priority=priority,
        channel=channel,
        status=status,
        now=now,
        slot=slot,
        targets=targets,
    )
    ticket.save()
    if tags:
        tagging.link_new_ticket_tags(ticket.pk, tagging.normalise_tags(tags))
    _record_creation(ticket, actor=actor, slot=slot, now=now)
    if slot is None:
        return NewTicket(ticket, routed, None)
    owner = routing.assigned_new(ticket_id=ticket.pk, subject=ticket.subject, slot=slot, now=now)
    return NewTicket(ticket, [*routed, owner], owner)


def _checked(subject: str, priority: str) -> str:
    """The subject as stored (stripped, at most 300 characters); a field error when it is
    empty or the priority unknown."""
    subject = subject.strip()[:300]
    if not subject:
        raise ValidationFailed(
            gettext("A subject is required."),
            fields={"subject": [gettext("This field is required.")]},
        )
    if priority not in Priority.values:
        raise ValidationFailed(
            gettext("Unknown priority."),
            fields={"priority": [gettext("Not one of %(values)s.") % {"values": Priority.values}]},
        )
    return subject


def _unsaved_ticket(
    *,
    subject: str,
    customer: Customer,
    queue: Queue,
    priority: str,
    channel: str,
    status: str,
    now: dt.datetime,
    slot: routing.Slot | None,
    targets: sla.Targets | None,
) -> Ticket:
    """The new row with its SLA clocks started, already assigned (version 2) when routing
    reserved it a slot, else flagged unrouted."""
    ticket = Ticket(
        subject=subject,
        customer=customer,
        queue=queue,
        priority=priority,
        channel=channel,
        status=status,
        unrouted=True,
        created_at=now,
        updated_at=now,
        last_customer_message_at=now,
    )
    clock = sla.start(now, targets or common.targets_for(ticket))
    common.apply_clock(ticket, clock, now)
    if slot is not None:
        ticket.assignee_id = slot.operator_id
        ticket.assigned_at = now
        ticket.unrouted = False
        ticket.version += 1
    return ticket


def _record_creation(
    ticket: Ticket, *, actor: Operator | None, slot: routing.Slot | None, now: dt.datetime
) -> None:
    """The timeline's creation entry (version 1 when routed, then routing's assignment at
    version 2), in one INSERT."""
    created = common.event_row(
        ticket,
        kind=TicketEventKind.CREATED,
        actor=actor,
        phrase="created",
        params={"queue": ticket.queue.name, "priority": ticket.priority},
        now=now,
        after={"queue": ticket.queue_id, "priority": ticket.priority, "status": ticket.status},
    )
    if slot is None:
        created.save(force_insert=True)
        return
    created.version = ticket.version - 1
    TicketEvent.objects.bulk_create(
        [
            created,
            routing.assignment_event(
                ticket_id=ticket.pk, slot=slot, version=ticket.version, now=now
            ),
        ]
    )
