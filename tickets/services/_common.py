"""Shared steps of the ticket services: locking with the stale-view check, the
compare-and-set save, timeline rows and SLA bookkeeping. Private to tickets.services."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from django.db.models import Field, Q
from django.utils.translation import gettext

from backoffice.errors import Conflict, Forbidden, NotFound, ValidationFailed
from identity.models import Operator
from tickets import access, phrases, sla
from tickets.models import (
    PAUSED_STATUSES,
    Mention,
    Message,
    NotificationKind,
    Queue,
    SlaTarget,
    Ticket,
    TicketEvent,
    TicketEventKind,
)
from tickets.notifications import notify

TICKET_AUDIT_FIELDS = [
    "subject",
    "status",
    "priority",
    "queue",
    "assignee",
    "unrouted",
    "version",
    "merged_into",
    "first_response_due_at",
    "next_response_due_at",
    "resolution_due_at",
    "sla_paused_since",
]
_MENTION_RE = re.compile(r"(?<![\w@])@([A-Za-z0-9_.+-]{1,150})")


def queue_for_new_ticket(actor: Operator, queue_id: int) -> tuple[Queue, bool]:
    """The queue an operator opens a ticket in, and whether they are a member of it:
    unknown queues are a field error; only members (or those who see every queue) may."""
    queue = Queue.objects.filter(pk=queue_id).first()
    if queue is None:
        raise ValidationFailed(
            gettext("Unknown queue."), fields={"queue": [gettext("No such queue.")]}
        )
    member = access.is_queue_member(actor, queue.pk)
    if not member and not access.sees_all(actor):
        raise Forbidden(gettext("You can only create tickets in queues you work."))
    return queue, member


def ticket_url(ticket_id: int) -> str:
    return f"/tickets/{ticket_id}/"


def lock_ticket(ticket_id: int) -> Ticket:
    ticket = (
        Ticket.objects.select_for_update(of=("self",))
        .select_related("queue", "assignee", "customer")
        .filter(pk=ticket_id)
        .first()
    )
    if ticket is None:
        raise NotFound(gettext("No such ticket."))
    return ticket


def lock_for_work(actor: Operator, ticket_id: int, expected_version: int | None) -> Ticket:
    """Lock the row, check the actor may work it (404/403 first, so a stale-view message
    never leaks a ticket), then the version the actor saw."""
    ticket = access.ensure_work(actor, lock_ticket(ticket_id))
    check_version(ticket, expected_version)
    return ticket


def check_version(ticket: Ticket, expected_version: int | None) -> None:
    if expected_version is None:
        raise ValidationFailed(
            gettext("The ticket version you saw is required."),
            fields={"version": [gettext("This field is required.")]},
        )
    if ticket.version != expected_version:
        raise stale(ticket, expected_version)


def stale(ticket: Ticket, seen_version: int) -> Conflict:
    events = list(
        TicketEvent.objects.filter(ticket_id=ticket.pk, version__gt=seen_version).order_by(
            "version", "id"
        )[:5]
    )
    if events:
        what = "; ".join(f"{e.actor_text}: {e.summary_text}" for e in events)
    else:
        what = gettext("it was updated by someone else")
    return Conflict(
        gettext(
            "This ticket changed since you opened it: %(what)s. Nothing was saved; reload the ticket to see the changes and try again."
        )
        % {"what": what},
        code="stale_ticket",
        fields={
            "version": [
                gettext("You saw version %(seen_version)s; it is now %(version)s.")
                % {"seen_version": seen_version, "version": ticket.version}
            ]
        },
    )


def save_ticket(ticket: Ticket, fields: Iterable[str], now: dt.datetime) -> None:
    """Compare-and-set: UPDATE ... WHERE id = %s AND version = <the version we checked>.
    The row lock already serialises writers on PostgreSQL; the version predicate is what
    makes the guarantee hold on any backend (and against writers that did not lock)."""
    seen = ticket.version
    values: dict[str, Any] = {}
    for name in set(fields):
        field = Ticket._meta.get_field(name)
        if not isinstance(field, Field):
            # get_field() also answers for reverse relations, which have no column to set.
            raise TypeError(f"{name!r} is not a column of Ticket.")
        values[field.attname] = getattr(ticket, field.attname)
    rows = Ticket.objects.filter(pk=ticket.pk, version=seen).update(
        version=seen + 1, updated_at=now, **values
    )
    if rows != 1:
        raise stale(ticket, seen)
    ticket.version = seen + 1
    ticket.updated_at = now


def event(
    ticket: Ticket,
    *,
    kind: str,
    actor: Operator | None,
    phrase: str,
    params: dict[str, Any] | None = None,
    now: dt.datetime,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> TicketEvent:
    row = event_row(
        ticket,
        kind=kind,
        actor=actor,
        phrase=phrase,
        params=params,
        now=now,
        before=before,
        after=after,
    )
    row.save(force_insert=True)
    return row


def status_event(
    ticket: Ticket, *, actor: Operator | None, old: str, new: str, now: dt.datetime
) -> TicketEvent:
    """The timeline entry for a status change (`old` to `new`), whatever caused it: a status
    set, a reply that sets one, a customer message that reopens the ticket."""
    return event(
        ticket,
        kind=TicketEventKind.STATUS,
        actor=actor,
        phrase="status",
        params={"old": old, "new": new},
        now=now,
        before={"status": old},
        after={"status": new},
    )


def event_row(
    ticket: Ticket,
    *,
    kind: str,
    actor: Operator | None,
    phrase: str,
    params: dict[str, Any] | None = None,
    now: dt.datetime,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> TicketEvent:
    """An unsaved timeline entry at the ticket's version (event() saves it). `phrase` is a
    key of tickets.phrases.EVENTS: the entry is worded when shown, in the reader's language."""
    params = params or {}
    return TicketEvent(
        ticket=ticket,
        kind=kind,
        actor=actor if actor is not None and actor.pk else None,
        actor_label=str(actor) if actor is not None else "System",
        before=before or {},
        after=after or {},
        summary=phrases.event_english(phrase, params)[:300],
        summary_key=phrase,
        summary_params=params,
        version=ticket.version,
        created_at=now,
    )


# SLA -------------------------------------------------------------------------------------


def targets_for(ticket: Ticket, priority: str | None = None) -> sla.Targets:
    priority = priority or ticket.priority
    row = SlaTarget.objects.filter(queue_id=ticket.queue_id, priority=priority).first()
    overrides = (
        {
            priority: sla.Targets(
                row.first_response_minutes, row.next_response_minutes, row.resolution_minutes
            )
        }
        if row
        else None
    )
    return sla.targets_for(priority, overrides)


def clock_of(ticket: Ticket) -> sla.Clock:
    return sla.Clock(
        first_response_due=ticket.first_response_due_at,
        next_response_due=ticket.next_response_due_at,
        resolution_due=ticket.resolution_due_at,
        paused_since=ticket.sla_paused_since,
        paused_seconds=ticket.sla_paused_seconds,
    )


SLA_FIELDS = [
    "first_response_due_at",
    "next_response_due_at",
    "resolution_due_at",
    "sla_next_due_at",
    "sla_paused_since",
    "sla_paused_seconds",
    "sla_near_breach",
    "sla_breached",
]


def apply_clock(ticket: Ticket, clock: sla.Clock, now: dt.datetime) -> list[str]:
    """Store the clock on the ticket. Flags are only ever cleared here (a reply met the
    clock that was breaching); raising them, and notifying, is sla_evaluate's job."""
    ticket.first_response_due_at = clock.first_response_due
    ticket.next_response_due_at = clock.next_response_due
    ticket.resolution_due_at = clock.resolution_due
    ticket.sla_next_due_at = clock.next_due
    ticket.sla_paused_since = clock.paused_since
    ticket.sla_paused_seconds = clock.paused_seconds
    if ticket.sla_near_breach or ticket.sla_breached:
        evaluation = sla.evaluate(clock, targets_for(ticket), now)
        ticket.sla_breached = ticket.sla_breached and evaluation.breached
        ticket.sla_near_breach = ticket.sla_near_breach and (
            evaluation.near_breach or evaluation.breached
        )
        if ticket.sla_breached:
            ticket.sla_near_breach = False
    return SLA_FIELDS


def clock_for_status(
    ticket: Ticket, old_status: str, new_status: str, now: dt.datetime
) -> sla.Clock:
    clock = clock_of(ticket)
    was_paused = old_status in PAUSED_STATUSES
    will_pause = new_status in PAUSED_STATUSES
    done = {"resolved", "closed"}
    if new_status in done:
        return sla.resolve(sla.resume(clock, now))
    if old_status in done:
        return sla.reopen(clock, now, targets_for(ticket))
    if will_pause and not was_paused:
        return sla.pause(clock, now)
    if was_paused and not will_pause:
        return sla.resume(clock, now)
    return clock


# Mentions -------------------------------------------------------------------------


def mentioned_operators(body: str, *, exclude: Operator | None = None) -> list[Operator]:
    names = {match.group(1).rstrip(".").lower() for match in _MENTION_RE.finditer(body)}
    if not names:
        return []
    query = Q()
    for name in names:
        query |= Q(username__iexact=name)
    operators = Operator.objects.filter(query, is_active=True, kind="human")
    return [op for op in operators if exclude is None or op.pk != exclude.pk]


def record_mentions(
    message: Message, ticket: Ticket, actor: Operator, now: dt.datetime, *, previous: str = ""
) -> list[Operator]:
    """Mention (and notify) operators named in a note who can see the ticket and were not
    already mentioned in it; an edit notifies only newly added names. A name that is no
    active operator's refuses the note (the caller's transaction rolls back): the writer
    meant to tell someone, and nobody would be told."""
    named = {m.group(1).rstrip(".").lower() for m in _MENTION_RE.finditer(message.body)}
    known = {op.username.lower() for op in mentioned_operators(message.body)}
    unknown = sorted(named - known)
    if unknown:
        raise ValidationFailed(
            gettext("Not saved: no operator is called %(names)s. Check the name after @.")
            % {"names": ", ".join(f"@{name}" for name in unknown)},
            fields={"body": [gettext("Unknown operator.")]},
        )
    already = {op.pk for op in mentioned_operators(previous)} if previous else set()
    notified = []
    for operator in mentioned_operators(message.body, exclude=actor):
        if operator.pk in already or not access.can_view(operator, ticket):
            continue
        _, created = Mention.objects.get_or_create(
            message=message, operator=operator, defaults={"created_at": now}
        )
        if not created:
            continue
        notify(
            recipient=operator,
            kind=NotificationKind.MENTION,
            title_key="mentioned_you",
            title_params={"actor": str(actor), "ticket": ticket.pk},
            body=message.body[:500],
            url=f"{ticket_url(ticket.pk)}#message-{message.pk}",
        )
        notified.append(operator)
    return notified


def snapshot_ticket(ticket: Ticket) -> dict[str, Any]:
    from identity.audit import snapshot

    return snapshot(ticket, TICKET_AUDIT_FIELDS)
