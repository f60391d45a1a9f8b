"""How the inbox's audit events read on the audit trail: tickets and queues by name, linked
for viewers who may open them."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext

from identity.audit_display import TargetKind, operator_link, register
from tickets import access
from tickets.models import Priority, Status, Ticket


def _ticket_url(pk: str, user: Any) -> str:
    if not pk.isdigit() or not getattr(user, "is_authenticated", False):
        return ""
    ticket = Ticket.objects.filter(pk=int(pk)).select_related("escalation").first()
    if ticket is None or not access.can_view(user, ticket):
        return ""
    return reverse("tickets:detail", args=[ticket.pk])


def register_audit_kinds() -> None:
    register(
        "tickets.ticket",
        TargetKind(
            label=lambda pk: gettext("Ticket #%(pk)s") % {"pk": pk},
            url=_ticket_url,
            field_links={"assignee": operator_link, "owner": operator_link},
            field_choices={"status": dict(Status.choices), "priority": dict(Priority.choices)},
        ),
    )
    register("tickets.queue", TargetKind(label=lambda pk: gettext("Queue #%(pk)s") % {"pk": pk}))
