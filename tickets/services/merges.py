"""Merging a ticket into another of the same customer's: the conversation moves, the merged
ticket closes with a pointer to the one it went into."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Forbidden, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from tickets import access, routing, sla
from tickets.models import Message, Status, Ticket, TicketEventKind
from tickets.notifications import system_message
from tickets.services import _common as common
from tickets.services import tags as tagging
from tickets.services.workflow import DONE


def _check_mergeable(source: Ticket, target: Ticket) -> None:
    if source.customer_id != target.customer_id:
        raise ValidationFailed(
            gettext("Only tickets of the same customer can be merged."),
            fields={"target": [gettext("This ticket belongs to another customer.")]},
        )
    for ticket in (source, target):
        if ticket.merged_into_id:
            raise ValidationFailed(
                gettext("Ticket #%(pk)s was already merged.") % {"pk": ticket.pk}
            )
    if target.status == Status.CLOSED:
        raise ValidationFailed(gettext("Merge into an open ticket, not a closed one."))


def _move_conversation(source: Ticket, target: Ticket, now: dt.datetime) -> int:
    """The source's messages (each marked with the ticket it came from) and tags go to the
    target, whose response clock follows the later customer message. How many messages
    moved."""
    moved = Message.objects.filter(ticket=source).count()
    Message.objects.filter(ticket=source, merged_from__isnull=True).update(merged_from=source)
    Message.objects.filter(ticket=source).update(ticket=target)
    target_tags = set(target.tags.values_list("name", flat=True))
    source_tags = set(source.tags.values_list("name", flat=True))
    if source_tags - target_tags:
        target.tags.set(tagging.tags_get_or_create(sorted(source_tags | target_tags)))
    if source.last_customer_message_at and (
        target.last_customer_message_at is None
        or source.last_customer_message_at > target.last_customer_message_at
    ):
        target.last_customer_message_at = source.last_customer_message_at
    common.save_ticket(target, ["last_customer_message_at"], now)
    return moved


def _close_merged(source: Ticket, target: Ticket, now: dt.datetime) -> None:
    """Close the source with a pointer to the target and its SLA clock resolved."""
    if source.status not in DONE:
        routing.lock_queues_of([source.assignee_id])  # closing it frees the owner's slot
    clock = sla.resolve(sla.resume(common.clock_of(source), now))
    source.status = Status.CLOSED
    source.closed_at = now
    source.merged_into = target
    common.save_ticket(
        source,
        ["status", "closed_at", "merged_into", *common.apply_clock(source, clock, now)],
        now,
    )


def ticket_merge(
    *,
    actor: Operator,
    source_id: int,
    target_id: int,
    expected_source_version: int | None,
    expected_target_version: int | None,
) -> Ticket:
    """Merge `source` into `target` (supervisors only; both tickets of the same customer).

    The source's messages move to the target, each marked with the ticket it came from;
    each ticket keeps its own timeline; the source is closed with a pointer to the target;
    tags are combined. Returns the target."""
    if source_id == target_id:
        raise ValidationFailed(
            gettext("A ticket cannot be merged into itself."),
            fields={"target": [gettext("Same ticket.")]},
        )
    with transaction.atomic():
        # Lock in id order so two merges of the same pair cannot deadlock.
        first, second = sorted([source_id, target_id])
        locked = {first: common.lock_ticket(first), second: common.lock_ticket(second)}
        source = access.ensure_view(actor, locked[source_id])
        target = access.ensure_view(actor, locked[target_id])
        if not access.can_merge(actor):
            raise Forbidden(gettext("Only a supervisor may merge tickets."))
        common.check_version(source, expected_source_version)
        common.check_version(target, expected_target_version)
        _check_mergeable(source, target)
        now = timezone.now()
        moved = _move_conversation(source, target, now)
        old_source_status = source.status
        _close_merged(source, target, now)
        params = {"actor": str(actor), "ticket": source.pk, "moved": moved}
        system_message(ticket_id=target.pk, body_key="merged", body_params=params, now=now).save(
            force_insert=True
        )
        common.event(
            source,
            kind=TicketEventKind.MERGE,
            actor=actor,
            phrase="merged_into",
            params={"ticket": target.pk},
            now=now,
            before={"status": old_source_status},
            after={"merged_into": target.pk, "status": Status.CLOSED},
        )
        common.event(
            target,
            kind=TicketEventKind.MERGE,
            actor=actor,
            phrase="merged_from",
            params={"ticket": source.pk},
            now=now,
            after={"merged_from": source.pk, "messages": moved},
        )
        routed: list[routing.Routed] = []
        if source.assignee_id and old_source_status not in DONE:
            routed = routing.route_queues(routing.queues_of(source.assignee_id), now=now)
        audit_record(
            actor=actor,
            action="ticket.merge",
            target=target,
            before={"source": source.pk, "source_status": old_source_status},
            after={
                "source": source.pk,
                "merged_into": target.pk,
                "messages_moved": moved,
                "routed": [r.ticket_id for r in routed],
            },
        )
    return target


__all__ = ["ticket_merge"]
