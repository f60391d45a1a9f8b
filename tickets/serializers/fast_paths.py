"""The ticket list and detail bodies, built by plain functions.

Nested DRF serializers cost about a millisecond per row, which is most of an inbox page. The
serializer classes in `tickets.serializers.tickets` stay the documented contract
(drf-spectacular reads them) and a test asserts both produce identical output.
"""

from __future__ import annotations

from typing import Any

from tickets.models import Message, MessageKind, Ticket


def _dt(value: Any) -> str | None:
    if value is None:
        return None
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _person(operator: Any) -> dict[str, Any] | None:
    return None if operator is None else {"id": operator.pk, "name": str(operator)}


def ticket_row(ticket: Ticket) -> dict[str, Any]:
    """Same output as TicketListItemSerializer(ticket).data."""
    escalation = getattr(ticket, "escalation", None)
    customer, queue = ticket.customer, ticket.queue
    return {
        "id": ticket.pk,
        "subject": ticket.subject,
        "status": ticket.status,
        "priority": ticket.priority,
        "channel": ticket.channel,
        "queue": {"id": queue.pk, "name": queue.name, "slug": queue.slug},
        "assignee": _person(ticket.assignee),
        "customer": {
            "id": customer.pk,
            "name": customer.name,
            "email": customer.email,
            "external_id": customer.external_id,
        },
        "tags": [tag.name for tag in ticket.tags.all()],
        "unrouted": ticket.unrouted,
        "escalation_category": escalation.category if escalation is not None else None,
        "version": ticket.version,
        "created_at": _dt(ticket.created_at),
        "updated_at": _dt(ticket.updated_at),
        "sla": {
            "first_response_due_at": _dt(ticket.first_response_due_at),
            "next_response_due_at": _dt(ticket.next_response_due_at),
            "resolution_due_at": _dt(ticket.resolution_due_at),
            "next_due_at": _dt(ticket.sla_next_due_at),
            "paused": ticket.is_paused,
            "paused_seconds": ticket.sla_paused_seconds,
            "near_breach": ticket.sla_near_breach,
            "breached": ticket.sla_breached,
        },
    }


def ticket_row_values(row: dict[str, Any], tags: list[str]) -> dict[str, Any]:
    """ticket_row() from a selectors.ticket_rows() dictionary (no model instances)."""
    assignee = None
    if row["assignee_id"] is not None:
        name = row["assignee__display_name"] or row["assignee__username"]
        assignee = {"id": row["assignee_id"], "name": name}
    return {
        "id": row["id"],
        "subject": row["subject"],
        "status": row["status"],
        "priority": row["priority"],
        "channel": row["channel"],
        "queue": {"id": row["queue_id"], "name": row["queue__name"], "slug": row["queue__slug"]},
        "assignee": assignee,
        "customer": {
            "id": row["customer_id"],
            "name": row["customer__name"],
            "email": row["customer__email"],
            "external_id": row["customer__external_id"],
        },
        "tags": tags,
        "unrouted": row["unrouted"],
        "escalation_category": row["escalation__category"],
        "version": row["version"],
        "created_at": _dt(row["created_at"]),
        "updated_at": _dt(row["updated_at"]),
        "sla": {
            "first_response_due_at": _dt(row["first_response_due_at"]),
            "next_response_due_at": _dt(row["next_response_due_at"]),
            "resolution_due_at": _dt(row["resolution_due_at"]),
            "next_due_at": _dt(row["sla_next_due_at"]),
            "paused": row["sla_paused_since"] is not None,
            "paused_seconds": row["sla_paused_seconds"],
            "near_breach": row["sla_near_breach"],
            "breached": row["sla_breached"],
        },
    }


def ticket_detail(
    ticket: Ticket, *, internal: bool, revision_counts: dict[int, int] | None = None
) -> dict[str, Any]:
    """Same output as TicketDetailSerializer(ticket, context={"internal": ...}).data.
    `revision_counts` (message id -> earlier texts; selectors.ticket_detail_for_api) stands
    in for prefetched revisions."""

    def revisions(message: Message) -> int:
        if revision_counts is not None:
            return revision_counts.get(message.pk, 0)
        return len(message.revisions.all())

    hidden = () if internal else (MessageKind.INTERNAL_NOTE, MessageKind.SYSTEM)
    escalation = getattr(ticket, "escalation", None)
    body = ticket_row(ticket)
    body.update(
        {
            "merged_into": ticket.merged_into_id,
            "first_responded_at": _dt(ticket.first_responded_at),
            "resolved_at": _dt(ticket.resolved_at),
            "escalation": None
            if escalation is None
            else {
                "category": escalation.category,
                "reason": escalation.reason,
                "summary": escalation.summary,
                "requested_action": escalation.requested_action,
                "conversation_id": escalation.conversation_id,
                "transcript": escalation.transcript,
            },
            "messages": [
                {
                    "id": m.pk,
                    "kind": m.kind,
                    "author": m.display_author,
                    "author_id": m.author_id,
                    "body": m.body_text,
                    "created_at": _dt(m.created_at),
                    "edited_at": _dt(m.edited_at),
                    "merged_from": m.merged_from_id,
                    "revisions": revisions(m),
                }
                for m in ticket.messages.all()
                if m.kind not in hidden
            ],
            "events": [
                {
                    "id": e.pk,
                    "kind": e.kind,
                    "actor": e.actor_text,
                    "summary": e.summary_text,
                    "summary_key": e.summary_key,
                    "summary_params": e.summary_params,
                    "before": e.before,
                    "after": e.after,
                    "version": e.version,
                    "created_at": _dt(e.created_at),
                }
                for e in ticket.events.all()
            ]
            if internal
            else [],
        }
    )
    return body
