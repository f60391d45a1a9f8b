"""Reads of operators as the inbox sees them: whom a ticket can be assigned to, an
operator's duty, who else has a ticket open, an operator's name for a message."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from identity.models import Operator, OperatorKind
from tickets import access
from tickets.models import OperatorAvailability, QueueMembership, Ticket, TicketPresence


def assignable_operators(*, operator: Operator, ticket: Ticket | None = None) -> list[Operator]:
    """Who `operator` may pick as an owner: supervisors anyone who works tickets, agents
    the members of the ticket's queue (or of their own queues, for bulk)."""
    workers = Operator.objects.filter(
        is_active=True,
        kind=OperatorKind.HUMAN,
        groups__permissions__codename__in=["work_tickets"],
        groups__permissions__content_type__app_label="tickets",
    ).distinct()
    if not operator.has_perm(access.ASSIGN):
        queues = (
            [ticket.queue_id]
            if ticket is not None
            else QueueMembership.objects.filter(operator=operator).values_list(
                "queue_id", flat=True
            )
        )
        workers = workers.filter(queue_memberships__queue_id__in=queues)
    return list(workers.order_by("username"))


def availability_of(*, operator: Operator) -> OperatorAvailability | None:
    return OperatorAvailability.objects.filter(operator=operator).first()


def presence_others(
    *, ticket_id: int, operator: Operator, window_seconds: int = 60
) -> list[Operator]:
    since = timezone.now() - dt.timedelta(seconds=window_seconds)
    rows = (
        TicketPresence.objects.filter(ticket_id=ticket_id, last_seen_at__gte=since)
        .exclude(operator=operator)
        .select_related("operator")
    )
    return [row.operator for row in rows]


def operator_label(*, operator_id: int) -> str:
    operator = Operator.objects.filter(pk=operator_id).first()
    return str(operator) if operator else f"Operator {operator_id}"
