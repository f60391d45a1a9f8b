"""The SLA beat job: raise near-breach and breached flags on running clocks, put them on the
timeline and notify the owner. The clock arithmetic itself is `tickets.sla`."""

from __future__ import annotations

import dataclasses
import datetime as dt

from django.db import transaction
from django.utils import timezone

from identity.audit import audit_record
from tickets import phrases, sla
from tickets.models import (
    ACTIVE_STATUSES,
    NotificationKind,
    SlaTarget,
    Ticket,
    TicketEvent,
    TicketEventKind,
)
from tickets.notifications import notify
from tickets.services import _common as common

# The widest near-breach window of any target: 20% of the longest default resolution
# target. Tickets further than this from their next deadline cannot change state now.
_SCAN_WINDOW = dt.timedelta(days=30)


@dataclasses.dataclass(frozen=True)
class SlaChange:
    ticket_id: int
    state: sla.State


def sla_evaluate(*, now: dt.datetime | None = None, limit: int = 2000) -> list[SlaChange]:
    """The beat job (every minute): raise near-breach and breached flags on running clocks
    that crossed a threshold, put it on the timeline and notify the owner (in-app and by
    email). Clearing flags happens when a reply or status change meets the clock.

    Rows an operator is changing right now are skipped (SKIP LOCKED) rather than waited
    for; the next minute's run evaluates them."""
    now = now or timezone.now()
    changes: list[SlaChange] = []
    with transaction.atomic():
        candidates = _running_clocks(now, limit)
        if not candidates:
            return []
        overrides = _overrides({t.queue_id for t in candidates})
        for ticket in candidates:
            targets = overrides.get((ticket.queue_id, ticket.priority))
            evaluation = sla.evaluate(
                common.clock_of(ticket), targets or sla.targets_for(ticket.priority), now
            )
            if evaluation.breached:
                state = sla.State.BREACHED
            elif evaluation.near_breach and not ticket.sla_near_breach:
                state = sla.State.NEAR_BREACH
            else:
                continue
            _raise_flag(ticket, state, now)
            changes.append(SlaChange(ticket_id=ticket.pk, state=state))
        if changes:
            audit_record(
                actor=None,
                action="ticket.sla_evaluate",
                target_type="tickets.ticket",
                target_id="sla",
                after={"changes": {str(ch.ticket_id): ch.state for ch in changes}},
            )
    return changes


def _running_clocks(now: dt.datetime, limit: int) -> list[Ticket]:
    """Active tickets whose running, unbreached clock is due within the scan window, most
    urgent first, locked (SKIP LOCKED), with their owner."""
    return list(
        Ticket.objects.select_for_update(of=("self",), skip_locked=True)
        .filter(
            status__in=ACTIVE_STATUSES,
            sla_paused_since__isnull=True,
            sla_breached=False,
            sla_next_due_at__isnull=False,
            sla_next_due_at__lte=now + _SCAN_WINDOW,
        )
        .select_related("assignee")
        .order_by("sla_next_due_at")[:limit]
    )


def _overrides(queue_ids: set[int]) -> dict[tuple[int, str], sla.Targets]:
    """These queues' own SLA targets, by (queue id, priority)."""
    return {
        (row.queue_id, row.priority): sla.Targets(
            row.first_response_minutes, row.next_response_minutes, row.resolution_minutes
        )
        for row in SlaTarget.objects.filter(queue_id__in=queue_ids)
    }


# Each state the job raises: its notification kind and its phrase (tickets.phrases).
_RAISED: dict[sla.State, tuple[str, str]] = {
    sla.State.BREACHED: (NotificationKind.SLA_BREACH, "sla_breached"),
    sla.State.NEAR_BREACH: (NotificationKind.SLA_NEAR_BREACH, "sla_near_breach"),
}


def _raise_flag(ticket: Ticket, state: sla.State, now: dt.datetime) -> None:
    """Set the ticket's flag for `state`, put it on the timeline and notify the owner."""
    kind, phrase = _RAISED[state]
    # Data, not words: the due time in UTC as the timeline and the title print it.
    due = f"{ticket.sla_next_due_at:%Y-%m-%d %H:%M}"
    Ticket.objects.filter(pk=ticket.pk).update(
        sla_breached=state is sla.State.BREACHED,
        sla_near_breach=state is sla.State.NEAR_BREACH,
    )
    TicketEvent.objects.create(
        ticket=ticket,
        kind=TicketEventKind.SLA,
        actor=None,
        actor_label="SLA",
        before={"near_breach": ticket.sla_near_breach, "breached": ticket.sla_breached},
        after={"state": state, "due": ticket.sla_next_due_at},
        summary=phrases.event_english(phrase, {"due": due}),
        summary_key=phrase,
        summary_params={"due": due},
        version=ticket.version,
        created_at=now,
    )
    if ticket.assignee is not None:
        notify(
            recipient=ticket.assignee,
            kind=kind,
            title_key=phrase,
            title_params={"ticket": ticket.pk, "due": due},
            body=ticket.subject,
            url=common.ticket_url(ticket.pk),
        )


__all__ = ["SlaChange", "sla_evaluate"]
