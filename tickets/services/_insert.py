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
    routed, slot = (
        routing.route_queue_for_new(queue.pk, now=now, queue_locked=queue_locked)
        if route
        else ([], None)
    )
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
    ticket.save()
    if tags:
        common.link_new_ticket_tags(ticket.pk, common.normalise_tags(tags))
    created = common.event_row(
        ticket,
        kind=TicketEventKind.CREATED,
        actor=actor,
        phrase="created",
        params={"queue": queue.name, "priority": priority},
        now=now,
        after={"queue": queue.pk, "priority": priority, "status": status},
    )
    if slot is None:
        created.save(force_insert=True)
        return NewTicket(ticket, routed, None)
    created.version = ticket.version - 1
    TicketEvent.objects.bulk_create(
        [
            created,
            routing.assignment_event(
                ticket_id=ticket.pk, slot=slot, version=ticket.version, now=now
            ),
        ]
    )
    owner = routing.assigned_new(ticket_id=ticket.pk, subject=ticket.subject, slot=slot, now=now)
    return NewTicket(ticket, [*routed, owner], owner)
