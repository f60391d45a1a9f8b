"""Who else has a ticket open right now (the heartbeat behind "also viewing")."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from identity.models import Operator
from tickets import access
from tickets.models import Ticket, TicketPresence

PRESENCE_WINDOW = dt.timedelta(seconds=60)


def presence_touch(*, actor: Operator, ticket_id: int) -> list[Operator]:
    """Record that `actor` has the ticket open now; return the others seen in the last 60 s.

    Deliberately not audited: a heartbeat every few seconds per open tab is not a business
    change, and it would bury the audit trail. It changes nothing but the presence row."""
    ticket = access.ensure_view(actor, Ticket.objects.filter(pk=ticket_id).first())
    now = timezone.now()
    TicketPresence.objects.update_or_create(
        ticket=ticket, operator=actor, defaults={"last_seen_at": now}
    )
    others = (
        TicketPresence.objects.filter(ticket=ticket, last_seen_at__gte=now - PRESENCE_WINDOW)
        .exclude(operator=actor)
        .select_related("operator")
        .order_by("operator__username")
    )
    return [p.operator for p in others]


__all__ = ["PRESENCE_WINDOW", "presence_touch"]
