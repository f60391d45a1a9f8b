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

Load: each operator's number of active tickets is a counter (OperatorLoad), kept exact by
database triggers on tickets_ticket (migration 0006) whatever writes the row — a service,
routing's claim, a bulk load — so a routing pass reads one row per member instead of
counting their tickets (~22k index entries per escalation at a capacity of a million).
load_recount rebuilds the counters from the tickets (the repair path; a test checks the
triggers never drift from it).

Concurrency and lock order: ticket row(s) → queue rows → load rows, each group in id order.
route_queues locks every queue it will route, then the load rows of all their on-duty
members, before it reads a load, so two passes that could give the same operator a ticket
— the same queue, or two queues the operator works — run one after the other and never
both fill the operator's last slot. Services that change who holds an active ticket call
lock_queues_of first, so the load row their UPDATE touches (through the trigger) is only
ever locked after the queues of its operator. Waiting tickets are picked with SKIP LOCKED,
so a pass never waits for a ticket an operator is changing (that operator's service may be
waiting for this pass's queue lock). Each ticket is still claimed with a compare-and-set
UPDATE (still unassigned, same version).

These functions run inside the calling service's transaction and write TicketEvents and
notifications, not audit events: the calling service's one audit event lists what was
routed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from tickets import phrases, routing_reads
from tickets.models import (
    ACTIVE_STATUSES,
    NotificationKind,
    OperatorLoad,
    Queue,
    QueueMembership,
    Ticket,
    TicketEvent,
    TicketEventKind,
)
from tickets.notifications import notify_operator


@dataclasses.dataclass(frozen=True)
class Routed:
    ticket_id: int
    operator_id: int
    operator_name: str


@dataclasses.dataclass
class Slot:
    membership_id: int
    operator_id: int
    name: str
    email: str
    free: int


def locks() -> bool:
    """Whether row locks exist here. SQLite has none: its transactions take the database's
    write lock when they begin (IMMEDIATE), so writers already run one at a time and the
    lock statements would only cost a round trip each."""
    return bool(connection.features.has_select_for_update)


def lock_queues(queue_ids: Iterable[int]) -> list[int]:
    """Lock these queue rows in id order (one statement); returns the ids that exist."""
    ids = sorted(set(queue_ids))
    if not ids or not locks():
        return ids
    return list(
        Queue.objects.select_for_update()
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def lock_queues_of(operator_ids: Iterable[int | None]) -> None:
    """Lock every queue these operators work (one statement), before a change to their
    load: see the lock order in the module docstring."""
    ids = {pk for pk in operator_ids if pk is not None}
    if not ids or not locks():
        return
    list(
        Queue.objects.select_for_update()
        .filter(pk__in=QueueMembership.objects.filter(operator_id__in=ids).values("queue_id"))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def route_queue(queue_id: int, *, now: dt.datetime | None = None) -> list[Routed]:
    """Assign the queue's waiting tickets, oldest first, while anyone has capacity."""
    return route_queues([queue_id], now=now)


def route_queue_for_new(
    queue_id: int, *, now: dt.datetime, queue_locked: bool = False
) -> tuple[list[Routed], Slot | None]:
    """route_queue() for a service about to insert a ticket into this queue: the waiting
    tickets are routed first (they are older; the new one would be last in line), then the
    next free slot, if any, is reserved for the new ticket, which the caller inserts
    already assigned to it (no claim UPDATE) and records with assignment_event() and
    assigned_new(). The queue and load rows stay locked until the caller commits.

    `queue_locked`: the caller already read the queue row FOR UPDATE in this transaction
    (FOR UPDATE OF the queue alone, when locks() is true), so the lock statement is
    skipped."""
    reserved: list[Slot] = []
    routed = _route_queues([queue_id], now, reserved, queue_locked=queue_locked)
    return routed, (reserved[0] if reserved else None)


def route_queues(queue_ids: Iterable[int], *, now: dt.datetime | None = None) -> list[Routed]:
    """Route several queues: lock them all (id order), then all their candidates' load
    rows (operator order), then route each queue in id order."""
    return _route_queues(queue_ids, now or timezone.now(), None)


def _route_queues(
    queue_ids: Iterable[int],
    now: dt.datetime,
    reserve: list[Slot] | None,
    *,
    queue_locked: bool = False,
) -> list[Routed]:
    locked = sorted(set(queue_ids)) if queue_locked else lock_queues(queue_ids)
    if not locked:
        return []
    members = routing_reads.members(locked)
    if not members:
        return []
    if locks():
        loads = routing_reads.lock_loads(m["operator_id"] for m in members)
    else:
        loads = {m["operator_id"]: m["load"] for m in members}
    routed: list[Routed] = []
    for queue_id in locked:
        routed.extend(
            _route_one(
                queue_id,
                [m for m in members if m["queue_id"] == queue_id],
                loads,
                now,
                reserve,
            )
        )
    return routed


def assignment_event(*, ticket_id: int, slot: Slot, version: int, now: dt.datetime) -> TicketEvent:
    """The timeline entry of routing's assignment (unsaved)."""
    return TicketEvent(
        ticket_id=ticket_id,
        kind=TicketEventKind.ASSIGNEE,
        actor=None,
        actor_label="Routing",
        before={"assignee": None},
        after={"assignee": slot.operator_id, "assignee_name": slot.name},
        summary=phrases.event_english("routed", {"name": slot.name}),
        summary_key="routed",
        summary_params={"name": slot.name},
        version=version,
        created_at=now,
    )


def assigned_new(*, ticket_id: int, subject: str, slot: Slot, now: dt.datetime) -> Routed:
    """Book-keeping after a new ticket was inserted already assigned to a slot reserved
    by route_queue_for_new(): the member's round-robin time and the owner's notification
    (the caller records assignment_event())."""
    QueueMembership.objects.filter(pk=slot.membership_id).update(last_assigned_at=now)
    _notify_assignee(ticket_id, subject, slot)
    return Routed(ticket_id=ticket_id, operator_id=slot.operator_id, operator_name=slot.name)


def _notify_assignee(ticket_id: int, subject: str, slot: Slot) -> None:
    notify_operator(
        recipient_id=slot.operator_id,
        email=slot.email,
        kind=NotificationKind.ASSIGNMENT,
        title_key="routed_to_you",
        title_params={"ticket": ticket_id},
        body=subject,
        url=f"/tickets/{ticket_id}/",
    )


def _route_one(
    queue_id: int,
    members: list[Mapping[str, Any]],
    loads: dict[int, int],
    now: dt.datetime,
    reserve: list[Slot] | None = None,
) -> list[Routed]:
    slots = [
        Slot(
            membership_id=m["id"],
            operator_id=m["operator_id"],
            name=m["display_name"] or m["username"],
            email=m["email"],
            free=m["cap"] - loads.get(m["operator_id"], 0),
        )
        for m in members
    ]
    slots = [slot for slot in slots if slot.free > 0]
    if not slots:
        return []
    # No more tickets than there are free slots can be placed in this pass.
    waiting = routing_reads.waiting(queue_id, sum(slot.free for slot in slots), lock=locks())
    routed: list[Routed] = []
    for ticket_id, version, subject in waiting:
        if not slots:
            break
        slot = slots.pop(0)
        claimed = Ticket.objects.filter(
            pk=ticket_id, version=version, assignee__isnull=True
        ).update(
            assignee_id=slot.operator_id,
            assigned_at=now,
            unrouted=False,
            version=version + 1,
            updated_at=now,
        )
        if not claimed:
            slots.insert(0, slot)  # someone took this ticket meanwhile; offer the slot again
            continue
        # The claim's UPDATE raised the operator's counter (trigger); keep our copy in step
        # for the other queues of this pass.
        loads[slot.operator_id] = loads.get(slot.operator_id, 0) + 1
        QueueMembership.objects.filter(pk=slot.membership_id).update(last_assigned_at=now)
        slot.free -= 1
        if slot.free > 0:
            slots.append(slot)  # back of the line: round-robin
        assignment_event(ticket_id=ticket_id, slot=slot, version=version + 1, now=now).save(
            force_insert=True
        )
        _notify_assignee(ticket_id, subject, slot)
        routed.append(
            Routed(ticket_id=ticket_id, operator_id=slot.operator_id, operator_name=slot.name)
        )
    if reserve is not None and slots:
        # The slot next in line goes to the caller's new ticket, as if it had been waiting.
        slot = slots[0]
        loads[slot.operator_id] = loads.get(slot.operator_id, 0) + 1
        reserve.append(slot)
    return routed


def queues_of(operator_id: int) -> list[int]:
    return list(
        QueueMembership.objects.filter(operator_id=operator_id).values_list("queue_id", flat=True)
    )


def load_recount(operator_ids: Iterable[int] | None = None) -> dict[int, int]:
    """Rebuild the load counters from the tickets (all operators, or these): the repair
    path behind the triggers. Locks the rows it rewrites, so a concurrent change waits and
    then applies its delta on top of the exact count. Returns {operator id: active tickets}
    for the operators whose counter was wrong (empty when nothing had drifted)."""
    tickets = Ticket.objects.filter(assignee__isnull=False, status__in=ACTIVE_STATUSES)
    rows = OperatorLoad.objects.select_for_update().order_by("pk")
    if operator_ids is not None:
        ids = sorted(set(operator_ids))
        tickets = tickets.filter(assignee_id__in=ids)
        rows = rows.filter(operator_id__in=ids)
    stored = dict(rows.values_list("operator_id", "active_tickets"))
    actual = dict(
        tickets.order_by()
        .values("assignee_id")
        .annotate(n=Count("*"))
        .values_list("assignee_id", "n")
    )
    wrong = {
        pk: actual.get(pk, 0)
        for pk in set(stored) | set(actual)
        if stored.get(pk, 0) != actual.get(pk, 0)
    }
    for pk, count in wrong.items():
        if pk in stored:
            OperatorLoad.objects.filter(pk=pk).update(active_tickets=count)
        else:
            OperatorLoad.objects.create(operator_id=pk, active_tickets=count)
    return wrong
