"""Changing a ticket: owner, status, priority, tags. A merge is in `merges`, the same
changes to many tickets in `bulk`."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Forbidden, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator, OperatorKind
from tickets import access, routing, sla
from tickets.models import (
    ACTIVE_STATUSES,
    PAUSED_STATUSES,
    NotificationKind,
    Priority,
    QueueMembership,
    Status,
    Ticket,
    TicketEventKind,
)
from tickets.notifications import notify
from tickets.services import _common as common
from tickets.services import tags as tagging

DONE = (Status.RESOLVED, Status.CLOSED)


def _assignee(assignee_id: int) -> Operator:
    operator = Operator.objects.filter(
        pk=assignee_id, is_active=True, kind=OperatorKind.HUMAN
    ).first()
    if operator is None or not operator.has_perm(access.WORK):
        raise ValidationFailed(
            gettext("That operator cannot work tickets."),
            fields={"assignee": [gettext("Not an active operator who works tickets.")]},
        )
    return operator


def _set_owner(
    ticket: Ticket, assignee: Operator, actor: Operator, now: dt.datetime, *, phrase: str
) -> tuple[int | None, list[routing.Routed]]:
    previous_id = ticket.assignee_id
    previous_name = str(ticket.assignee) if ticket.assignee else None
    if ticket.is_active:
        # Both owners' load counters change with the UPDATE below (trigger): lock their
        # queues first, the order routing takes its locks in (see tickets.routing).
        routing.lock_queues_of([previous_id, assignee.pk])
    ticket.assignee = assignee
    ticket.assigned_at = now
    ticket.unrouted = False
    common.save_ticket(ticket, ["assignee", "assigned_at", "unrouted"], now)
    QueueMembership.objects.filter(queue_id=ticket.queue_id, operator=assignee).update(
        last_assigned_at=now
    )
    common.event(
        ticket,
        kind=TicketEventKind.ASSIGNEE,
        actor=actor,
        phrase=f"{phrase}_was" if previous_name else phrase,
        params={"name": str(assignee)} | ({"previous": previous_name} if previous_name else {}),
        now=now,
        before={"assignee": previous_id, "assignee_name": previous_name},
        after={"assignee": assignee.pk, "assignee_name": str(assignee)},
    )
    if assignee.pk != actor.pk:
        notify(
            recipient=assignee,
            kind=NotificationKind.ASSIGNMENT,
            title_key="assigned_to_you",
            title_params={"actor": str(actor), "ticket": ticket.pk},
            body=ticket.subject,
            url=common.ticket_url(ticket.pk),
        )
    routed: list[routing.Routed] = []
    if previous_id is not None and ticket.is_active:
        # The previous owner just gained a free slot.
        routed = routing.route_queues(routing.queues_of(previous_id), now=now)
    return previous_id, routed


def _change_owner(
    ticket: Ticket,
    assignee: Operator,
    actor: Operator,
    now: dt.datetime,
    *,
    phrase: str,
    action: str,
) -> None:
    """_set_owner() by an operator's request (assign, reassign, take), audited as `action`."""
    previous, routed = _set_owner(ticket, assignee, actor, now, phrase=phrase)
    audit_record(
        actor=actor,
        action=action,
        target=ticket,
        before={"assignee": previous},
        after={
            "assignee": assignee.pk,
            "version": ticket.version,
            "routed": [r.ticket_id for r in routed],
        },
    )


def ticket_assign(
    *, actor: Operator, ticket_id: int, assignee_id: int, expected_version: int | None
) -> Ticket:
    """Give a ticket an owner. Agents may assign an unowned ticket of their queue to a
    member of that queue; changing an existing owner is a reassignment (supervisors)."""
    with transaction.atomic():
        ticket = common.lock_for_work(actor, ticket_id, expected_version)
        assignee = _assignee(assignee_id)
        if ticket.assignee_id == assignee.pk:
            raise ValidationFailed(
                gettext("Ticket #%(pk)s is already assigned to %(assignee)s.")
                % {"pk": ticket.pk, "assignee": assignee}
            )
        if not access.can_assign_to(actor, ticket, assignee):
            raise Forbidden(
                gettext(
                    "Only a supervisor may reassign an owned ticket or assign outside its queue."
                )
            )
        reassign = ticket.assignee_id is not None
        now = timezone.now()
        _change_owner(
            ticket,
            assignee,
            actor,
            now,
            phrase="reassigned" if reassign else "assigned",
            action="ticket.reassign" if reassign else "ticket.assign",
        )
    return ticket


def ticket_reassign(
    *, actor: Operator, ticket_id: int, assignee_id: int, expected_version: int | None
) -> Ticket:
    """Move a ticket to another owner (supervisors only)."""
    if not access.can_reassign(actor):
        # Existence check first: an agent must not learn whether a hidden ticket exists.
        access.ensure_view(actor, Ticket.objects.filter(pk=ticket_id).first())
        raise Forbidden(gettext("Only a supervisor may reassign tickets."))
    return ticket_assign(
        actor=actor, ticket_id=ticket_id, assignee_id=assignee_id, expected_version=expected_version
    )


def ticket_take(*, actor: Operator, ticket_id: int, expected_version: int | None) -> Ticket:
    """Take ownership: an agent takes an unowned ticket of their queue; a supervisor may
    take any ticket."""
    with transaction.atomic():
        ticket = common.lock_for_work(actor, ticket_id, expected_version)
        if ticket.assignee_id == actor.pk:
            raise ValidationFailed(gettext("You already own this ticket."))
        if not access.can_take(actor, ticket):
            raise Forbidden(
                gettext("Ticket #%(pk)s belongs to %(assignee)s; only a supervisor may take it.")
                % {"pk": ticket.pk, "assignee": ticket.assignee}
            )
        now = timezone.now()
        _change_owner(ticket, actor, actor, now, phrase="taken", action="ticket.take")
    return ticket


def _change_status(
    ticket: Ticket, status: str, actor: Operator | None, now: dt.datetime
) -> list[routing.Routed]:
    old = ticket.status
    if status not in Status.values:
        raise ValidationFailed(
            gettext("Unknown status."),
            fields={"status": [gettext("Not one of %(values)s.") % {"values": Status.values}]},
        )
    if status == old:
        raise ValidationFailed(
            gettext("The ticket is already %(lower)s.") % {"lower": Status(old).label.lower()}
        )
    if status == Status.NEW:
        raise ValidationFailed(
            gettext("A ticket cannot go back to New."), fields={"status": [gettext("Not allowed.")]}
        )
    if old == Status.CLOSED:
        raise ValidationFailed(
            gettext("A closed ticket stays closed."), fields={"status": [gettext("Not allowed.")]}
        )
    clock = common.clock_for_status(ticket, old, status, now)
    if (old in ACTIVE_STATUSES) != (status in ACTIVE_STATUSES):
        # The owner's load counter changes with the UPDATE below: lock order, see routing.
        routing.lock_queues_of([ticket.assignee_id])
    ticket.status = status
    if status == Status.RESOLVED:
        ticket.resolved_at = now
    elif status == Status.CLOSED:
        ticket.closed_at = now
        ticket.resolved_at = ticket.resolved_at or now
    else:
        ticket.resolved_at = None
    common.save_ticket(
        ticket, ["status", "resolved_at", "closed_at", *common.apply_clock(ticket, clock, now)], now
    )
    common.status_event(ticket, actor=actor, old=old, new=status, now=now)
    if (status in PAUSED_STATUSES) != (old in PAUSED_STATUSES):
        common.event(
            ticket,
            kind=TicketEventKind.SLA,
            actor=actor,
            phrase="sla_paused" if status in PAUSED_STATUSES else "sla_resumed",
            now=now,
            after={
                "paused_since": ticket.sla_paused_since,
                "paused_seconds": ticket.sla_paused_seconds,
            },
        )
    if status in DONE and old not in DONE and ticket.assignee_id:
        return routing.route_queues(routing.queues_of(ticket.assignee_id), now=now)
    return []


def ticket_status_set(
    *, actor: Operator, ticket_id: int, status: str, expected_version: int | None
) -> Ticket:
    """Move a ticket through its lifecycle. Pending customer and on hold pause the SLA;
    resolved and closed stop it and free the owner's capacity for waiting tickets."""
    with transaction.atomic():
        ticket = common.lock_for_work(actor, ticket_id, expected_version)
        if ticket.merged_into_id:
            raise ValidationFailed(
                gettext("This ticket was merged; change the ticket it was merged into.")
            )
        old = ticket.status
        now = timezone.now()
        routed = _change_status(ticket, status, actor, now)
        audit_record(
            actor=actor,
            action="ticket.status",
            target=ticket,
            before={"status": old},
            after={
                "status": status,
                "version": ticket.version,
                "routed": [r.ticket_id for r in routed],
            },
        )
    return ticket


def ticket_priority_set(
    *, actor: Operator, ticket_id: int, priority: str, expected_version: int | None
) -> Ticket:
    """Change priority; the running SLA clocks are recomputed from the new targets."""
    if priority not in Priority.values:
        raise ValidationFailed(
            gettext("Unknown priority."),
            fields={"priority": [gettext("Not one of %(values)s.") % {"values": Priority.values}]},
        )
    with transaction.atomic():
        ticket = common.lock_for_work(actor, ticket_id, expected_version)
        old = ticket.priority
        if old == priority:
            raise ValidationFailed(
                gettext("The priority is already %(lower)s.")
                % {"lower": Priority(old).label.lower()}
            )
        now = timezone.now()
        before_due = common.clock_of(ticket).next_due
        ticket.priority = priority
        clock = sla.retarget(
            common.clock_of(ticket),
            created_at=ticket.created_at,
            last_customer_message_at=ticket.last_customer_message_at,
            targets=common.targets_for(ticket, priority),
        )
        common.save_ticket(ticket, ["priority", *common.apply_clock(ticket, clock, now)], now)
        common.event(
            ticket,
            kind=TicketEventKind.PRIORITY,
            actor=actor,
            phrase="priority",
            params={"old": old, "new": priority},
            now=now,
            before={"priority": old},
            after={"priority": priority},
        )
        common.event(
            ticket,
            kind=TicketEventKind.SLA,
            actor=actor,
            phrase="sla_recalculated",
            now=now,
            before={"next_due": before_due},
            after={"next_due": ticket.sla_next_due_at},
        )
        audit_record(
            actor=actor,
            action="ticket.priority",
            target=ticket,
            before={"priority": old},
            after={"priority": priority, "version": ticket.version},
        )
    return ticket


def ticket_tags_set(
    *, actor: Operator, ticket_id: int, tags: list[str], expected_version: int | None
) -> Ticket:
    """Replace the ticket's tags (normalised to lower case, at most 20)."""
    names = tagging.normalise_tags(tags)
    with transaction.atomic():
        ticket = common.lock_for_work(actor, ticket_id, expected_version)
        before = sorted(ticket.tags.values_list("name", flat=True))
        if before == names:
            raise ValidationFailed(gettext("The tags are unchanged."))
        now = timezone.now()
        common.save_ticket(ticket, [], now)
        ticket.tags.set(tagging.tags_get_or_create(names))
        added = sorted(set(names) - set(before))
        removed = sorted(set(before) - set(names))
        common.event(
            ticket,
            kind=TicketEventKind.TAGS,
            actor=actor,
            phrase="tags_changed"
            if added and removed
            else "tags_added"
            if added
            else "tags_removed",
            params={"added": added, "removed": removed},
            now=now,
            before={"tags": before},
            after={"tags": names},
        )
        audit_record(
            actor=actor,
            action="ticket.tags",
            target=ticket,
            before={"tags": before},
            after={"tags": names, "version": ticket.version},
        )
    return ticket
