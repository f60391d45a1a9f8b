"""The ticket page: the conversation, timeline and controls of one ticket, and the presence
poll that shows who else has it open."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from backoffice.errors import NotFound
from backoffice.request_operator import request_operator
from payments_sandbox import access as payments_access
from payments_sandbox import selectors as payments_selectors
from tickets import access, selectors, services
from tickets.models import (
    MessageKind,
    Priority,
    Status,
    Ticket,
    TicketEventKind,
)
from tickets.views.guards import inbox_user


def _customer_payments(request: HttpRequest, ticket: Ticket) -> list[Any] | None:
    """The customer's payments and their refunds, read through payments' own selector (the
    inbox never writes them). None when the viewer may not see payments."""
    if not payments_access.can_view_payments(request.user):
        return None
    return payments_selectors.payments_for_customer(email=ticket.customer.email)


def detail_context(request: HttpRequest, ticket_id: int, **extra: Any) -> dict[str, Any]:
    """The ticket page's context; `extra` sets what an action re-renders it with (the kept
    draft, the conflict shown)."""
    operator = request_operator(request)
    ticket = selectors.ticket_get_for_operator(operator=operator, ticket_id=ticket_id)
    timeline = list(ticket.events.all())
    return {
        "ticket": ticket,
        "conversation": list(ticket.messages.all()),
        "timeline": timeline,
        # A deadline that was missed stays on the page after the late reply met the clock.
        "sla_breaches": [
            event
            for event in timeline
            if event.kind == TicketEventKind.SLA and (event.after or {}).get("state") == "breached"
        ],
        "tags_text": ", ".join(tag.name for tag in ticket.tags.all()),
        "statuses": Status.choices,
        "priorities": Priority.choices,
        "assignees": selectors.assignable_operators(operator=operator, ticket=ticket),
        "can_take": access.can_take(operator, ticket),
        "can_reassign": access.can_reassign(operator),
        "can_merge": access.can_merge(operator),
        "can_work": not ticket.merged_into_id and ticket.status != Status.CLOSED,
        "can_reply_publicly": access.can_reply_publicly(ticket),
        "others": selectors.presence_others(ticket_id=ticket.pk, operator=operator),
        "next_ticket": selectors.ticket_next_for(operator=operator, after_id=ticket.pk),
        "related": selectors.merge_candidates(operator=operator, ticket=ticket),
        "customer_payments": _customer_payments(request, ticket),
        "kinds": MessageKind,
        "reply_draft": "",
        "note_draft": "",
        "conflict": "",
        **extra,
    }


def ticket_detail(request: HttpRequest, ticket_id: int) -> HttpResponse:
    operator = inbox_user(request)
    try:
        context = detail_context(request, ticket_id)
    except NotFound as error:
        raise Http404(error.message) from error
    services.presence_touch(actor=operator, ticket_id=ticket_id)
    return render(request, "tickets/ticket_detail.html", context)


@require_GET
def presence(request: HttpRequest, ticket_id: int) -> HttpResponse:
    operator = inbox_user(request)
    try:
        others = services.presence_touch(actor=operator, ticket_id=ticket_id)
    except NotFound as error:
        raise Http404(error.message) from error
    return render(request, "tickets/_presence.html", {"others": others})
