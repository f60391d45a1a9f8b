"""Findings: a ticket that another part of the backoffice opens about the AI agent itself — a
go-live trial that failed — for the people who run the agent to review.

It reads like an escalation (the card with the reason and summary, then the conversation
turn by turn: the simulated customer, the agent, each tool call and its result) and its
customer is simulated, so it takes internal notes only: a public reply would go to nobody.
It goes to its queue's on-duty members like any ticket; when nobody there can take it, its
creator owns it, so it never waits unassigned and its creator can always open it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Forbidden, ValidationFailed
from identity.models import Operator
from tickets import access
from tickets.models import (
    Channel,
    Escalation,
    EscalationCategory,
    Message,
    MessageKind,
    Priority,
    Queue,
    Status,
    Ticket,
)
from tickets.services._insert import insert_ticket
from tickets.services.conversation import customer_upsert
from tickets.services.workflow import _set_owner

# The one customer of every finding: nobody real reads what is written to them.
SIMULATED_CUSTOMER_NAME = "Go-live simulated customer"
# A tool result longer than this is cut on the ticket (the whole result stays on the page
# the finding links to).
TOOL_RESULT_CHARS = 2000


def _turns(transcript: list[dict[str, Any]], customer_name: str) -> list[tuple[str, str, str]]:
    """(kind, author, body) per turn: the customer's and the agent's words, and each tool
    call and each tool result as its own system line."""
    turns: list[tuple[str, str, str]] = []
    for message in transcript:
        role = message.get("role")
        content = str(message.get("content") or "").strip()
        if role in ("user", "assistant"):
            customer = role == "user"
            if content:
                turns.append(
                    (MessageKind.CUSTOMER, customer_name, content)
                    if customer
                    else (MessageKind.AI_AGENT, "AI agent", content)
                )
            for call in message.get("tool_calls") or []:
                turns.append(
                    (
                        MessageKind.SYSTEM,
                        customer_name if customer else "AI agent",
                        f"Tool call: {call.get('name', '?')}({call.get('arguments', '')})",
                    )
                )
        elif role == "tool" and content:
            if len(content) > TOOL_RESULT_CHARS:
                content = content[:TOOL_RESULT_CHARS] + "…"
            turns.append((MessageKind.SYSTEM, "Tool result", content))
    return turns


def ticket_open_for_finding(
    *,
    actor: Operator,
    queue_slug: str,
    queue_name: str,
    subject: str,
    reason: str,
    summary: str,
    details: list[str],
    transcript: list[dict[str, Any]],
    source_url: str,
    tags: list[str],
) -> Ticket:
    """Open a finding ticket. `transcript`: the conversation as the agent saw it (role
    user/assistant/tool, content, an assistant's tool_calls); `source_url`: the page the
    finding came from, linked from the ticket. The caller checks the actor may report it;
    the audit event is the caller's (it records what was reported, in its own terms, with
    the ticket and its owner)."""
    if actor.is_service_principal:
        raise Forbidden(gettext("Findings are opened by people."))
    if not (subject.strip() and reason.strip() and summary.strip()):
        raise ValidationFailed(gettext("A finding needs a subject, a reason and a summary."))
    with transaction.atomic():
        now = timezone.now()
        queue, _ = Queue.objects.get_or_create(slug=queue_slug, defaults={"name": queue_name})
        customer = customer_upsert(
            name=SIMULATED_CUSTOMER_NAME, external_id=access.SIMULATED_CUSTOMER_EXTERNAL_ID
        )
        new = insert_ticket(
            actor=actor,
            subject=subject,
            customer=customer,
            queue=queue,
            priority=Priority.NORMAL,
            channel=Channel.AI_AGENT,
            status=Status.NEW,
            tags=tags,
            now=now,
        )
        ticket = new.ticket
        Escalation.objects.create(
            ticket=ticket,
            category=EscalationCategory.AGENT_FAILURE,
            reason=reason.strip(),
            summary=summary.strip(),
            transcript=transcript,
            requested_action="Review the failing trial and decide what to fix.",
            conversation_id="",
            created_by=actor,
            created_at=now,
        )
        Message.objects.bulk_create(
            [
                Message(
                    ticket=ticket,
                    kind=MessageKind.SYSTEM,
                    author_label="Go-live suite",
                    body="\n".join([*details, f"Source: {source_url}"]),
                    created_at=now,
                ),
                *(
                    Message(
                        ticket=ticket, kind=kind, author_label=author, body=body, created_at=now
                    )
                    for kind, author, body in _turns(transcript, customer.name)
                ),
            ]
        )
        if new.owner is None and access.can_use_inbox(actor):
            # Nobody of the queue is on duty: the person who opened it owns it.
            _set_owner(ticket, actor, actor, now, phrase="owned_by_creator")
    return ticket
