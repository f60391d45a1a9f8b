"""Routing: hand each waiting ticket of a queue to an on-duty member with spare capacity.

Rules
- Oldest waiting ticket first (created_at, then id).
- Eligible: an active human member of the queue, on duty, holding fewer active tickets
  (any queue) than their cap — their availability's capacity_override, else the queue's
  capacity_per_operator.
- Fairness: among the eligible, the member assigned a ticket in this queue least recently
  (never-assigned first), so work rotates round-robin.
- A ticket nobody can take stays flagged `unrouted`; route_queue runs again whenever
  capacity may have appeared: an operator going on duty, a ticket resolved or closed, and
  the periodic beat sweep.

Concurrency: route_queue locks the queue row (SELECT ... FOR UPDATE), so two routing passes
for the same queue run one after the other and cannot both see the same spare slot. Loads
are counted across queues without locking the operator, so two *different* queues routing
to the same operator at the same instant can exceed their cap by one; the cap is a routing
target and manual assignment may exceed it anyway. Each ticket is claimed with a
compare-and-set UPDATE (still unassigned, same version), so an operator taking a ticket
while the router runs wins cleanly.

These functions run inside the calling service's transaction and write TicketEvents and
notifications, not audit events: the calling service's one audit event lists what was
routed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from identity.models import Operator, OperatorKind
from tickets.models import (
    ACTIVE_STATUSES,
    NotificationKind,
    Queue,
    QueueMembership,
    Ticket,
    TicketEvent,
    TicketEventKind,
)
from tickets.notifications import notify


@dataclasses.dataclass(frozen=True)
class Routed:
    ticket_id: int
    operator_id: int
    operator_name: str


@dataclasses.dataclass
class _Slot:
    membership: QueueMembership
    operator: Operator
    free: int


def _slots(queue: Queue) -> list[_Slot]:
    """The on-duty members of the queue, least recently assigned first, each with their
    free capacity: one query, each member's load counted by a correlated COUNT(*) over the
    (assignee, status) index."""
    load = (
        Ticket.objects.filter(assignee_id=OuterRef("operator_id"), status__in=ACTIVE_STATUSES)
        .order_by()
        .values("assignee_id")
        .annotate(n=Count("*"))
        .values("n")
    )
    memberships = (
        QueueMembership.objects.filter(
            queue=queue,
            operator__is_active=True,
            operator__kind=OperatorKind.HUMAN,
            operator__availability__on_duty=True,
        )
        .select_related("operator", "operator__availability")
        .annotate(load=Coalesce(Subquery(load), 0))
        .order_by(F("last_assigned_at").asc(nulls_first=True), "joined_at", "id")
    )
    slots = []
    for membership in memberships:
        override = membership.operator.availability.capacity_override
        cap = override if override is not None else queue.capacity_per_operator
        slots.append(
            _Slot(membership=membership, operator=membership.operator, free=cap - membership.load)
        )
    return slots


def route_queue(queue_id: int, *, now: dt.datetime | None = None) -> list[Routed]:
    """Assign the queue's waiting tickets, oldest first, while anyone has capacity."""
    now = now or timezone.now()
    queue = Queue.objects.select_for_update().filter(pk=queue_id).first()
    if queue is None:
        return []
    slots = [slot for slot in _slots(queue) if slot.free > 0]
    if not slots:
        return []
    # No more tickets than there are free slots can be placed in this pass.
    waiting = (
        Ticket.objects.filter(
            queue=queue, unrouted=True, assignee__isnull=True, status__in=ACTIVE_STATUSES
        )
        .only("id", "version", "subject")
        .order_by("created_at", "id")[: sum(slot.free for slot in slots)]
    )
    routed: list[Routed] = []
    for ticket in waiting:
        if not slots:
            break
        slot = slots.pop(0)
        claimed = Ticket.objects.filter(
            pk=ticket.pk, version=ticket.version, assignee__isnull=True
        ).update(
            assignee=slot.operator,
            assigned_at=now,
            unrouted=False,
            version=ticket.version + 1,
            updated_at=now,
        )
        if not claimed:
            slots.insert(0, slot)  # someone took this ticket meanwhile; offer the slot again
            continue
        QueueMembership.objects.filter(pk=slot.membership.pk).update(last_assigned_at=now)
        slot.free -= 1
        if slot.free > 0:
            slots.append(slot)  # back of the line: round-robin
        name = str(slot.operator)
        TicketEvent.objects.create(
            ticket_id=ticket.pk,
            kind=TicketEventKind.ASSIGNEE,
            actor=None,
            actor_label="Routing",
            before={"assignee": None},
            after={"assignee": slot.operator.pk, "assignee_name": name},
            summary=f"Routed to {name}",
            version=ticket.version + 1,
            created_at=now,
        )
        notify(
            recipient=slot.operator,
            kind=NotificationKind.ASSIGNMENT,
            title=f"Ticket #{ticket.pk} assigned to you",
            body=ticket.subject,
            url=f"/tickets/{ticket.pk}/",
        )
        routed.append(Routed(ticket_id=ticket.pk, operator_id=slot.operator.pk, operator_name=name))
    return routed


def route_queues(queue_ids: list[int], *, now: dt.datetime | None = None) -> list[Routed]:
    """Route several queues, in id order so concurrent passes lock queues in one order."""
    routed: list[Routed] = []
    for queue_id in sorted(set(queue_ids)):
        routed.extend(route_queue(queue_id, now=now))
    return routed


def queues_of(operator_id: int) -> list[int]:
    return list(
        QueueMembership.objects.filter(operator_id=operator_id).values_list("queue_id", flat=True)
    )
