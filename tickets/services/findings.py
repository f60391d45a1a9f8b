"""Findings: a ticket that another part of the backoffice opens about the AI agent itself — a
go-live trial that failed — for the people who run the agent to review.

It reads like an escalation (the card with the reason and summary, then the conversation
turn by turn: the simulated customer, the agent, each tool call and its result) and its
customer is simulated, so it takes internal notes only: a public reply would go to nobody.
It goes to its queue's on-duty members like any ticket; when nobody there can take it, its
creator owns it, so it never waits unassigned and its creator can always open it.
"""

from __future__ import annotations

from datetime import datetime
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
from tickets.notifications import system_message
from tickets.phrases import SIMULATED_CUSTOMER, card_english, note_english
from tickets.services._insert import insert_ticket
from tickets.services.conversation import customer_upsert
from tickets.services.workflow import _set_owner

# A tool result longer than this is cut on the ticket (the whole result stays on the page
# the finding links to).
TOOL_RESULT_CHARS = 2000


Turn = tuple[str, str, str, str | None, dict[str, Any] | None]


def _turns(transcript: list[dict[str, Any]], customer_name: str) -> list[Turn]:
    """(kind, author, body, body_key, body_params) per turn: the customer's and the agent's
    words, and each tool call and each tool result as its own system line (a call's line
    keyed, so its words follow the reader's language)."""
    turns: list[Turn] = []
    for message in transcript:
        role = message.get("role")
        content = str(message.get("content") or "").strip()
        if role in ("user", "assistant"):
            customer = role == "user"
            if content:
                turns.append(
                    (MessageKind.CUSTOMER, customer_name, content, None, None)
                    if customer
                    else (MessageKind.AI_AGENT, "AI agent", content, None, None)
                )
            for call in message.get("tool_calls") or []:
                params = {
                    "name": str(call.get("name", "?")),
                    "arguments": str(call.get("arguments", "")),
                }
                author = customer_name if customer else "AI agent"
                body = note_english("tool_call", params)
                turns.append((MessageKind.SYSTEM, author, body, "tool_call", params))
        elif role == "tool" and content:
            if len(content) > TOOL_RESULT_CHARS:
                content = content[:TOOL_RESULT_CHARS] + "…"
            turns.append((MessageKind.SYSTEM, "Tool result", content, None, None))
    return turns


def ticket_open_for_finding(
    *,
    actor: Operator,
    queue_slug: str,
    queue_name: str,
    subject: str,
    card: dict[str, Any],
    diff: list[str],
    notes: list[str],
    transcript: list[dict[str, Any]],
    source_url: str,
    tags: list[str],
) -> Ticket:
    """Open a finding ticket. `card`: the values its card is worded from in the reader's
    language (tickets.phrases.FINDING_CARD: run, trial, failure, termination, suite, agent,
    components); `diff` and `notes`: the trial's state differences and notes, listed in the
    first message; `transcript`: the conversation as the agent saw it (role user/assistant/
    tool, content, an assistant's tool_calls); `source_url`: the page the finding came from,
    linked from the ticket. The caller checks the actor may report it; the audit event is the
    caller's (it records what was reported, in its own terms, with the ticket and its
    owner)."""
    if actor.is_service_principal:
        raise Forbidden(gettext("Findings are opened by people."))
    english = card_english("finding", card)
    if not (subject.strip() and english["reason"] and english["summary"]):
        raise ValidationFailed(gettext("A finding needs a subject, a reason and a summary."))
    with transaction.atomic():
        now = timezone.now()
        queue, _ = Queue.objects.get_or_create(slug=queue_slug, defaults={"name": queue_name})
        customer = customer_upsert(
            name=SIMULATED_CUSTOMER, external_id=access.SIMULATED_CUSTOMER_EXTERNAL_ID
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
            reason=english["reason"],
            summary=english["summary"],
            transcript=transcript,
            requested_action=english["requested_action"],
            card_key="finding",
            card_params=card,
            conversation_id="",
            created_by=actor,
            created_at=now,
        )
        _post_conversation(ticket, customer.name, diff, notes, source_url, transcript, now)
        if new.owner is None and access.can_use_inbox(actor):
            # Nobody of the queue is on duty: the person who opened it owns it.
            _set_owner(ticket, actor, actor, now, phrase="owned_by_creator")
    return ticket


def _post_conversation(
    ticket: Ticket,
    customer_name: str,
    diff: list[str],
    notes: list[str],
    source_url: str,
    transcript: list[dict[str, Any]],
    now: datetime,
) -> None:
    """The finding's first message (its differences, notes and source), then the
    conversation turn by turn, each tool call and result apart."""
    details = {"diff": diff, "notes": notes, "source": source_url}
    Message.objects.bulk_create(
        [
            system_message(
                ticket_id=ticket.pk,
                body_key="finding",
                body_params=details,
                now=now,
                author_label="Go-live suite",
            ),
            *(
                Message(
                    ticket=ticket,
                    kind=kind,
                    author_label=author,
                    body=body,
                    body_key=key,
                    body_params=params,
                    created_at=now,
                )
                for kind, author, body, key, params in _turns(transcript, customer_name)
            ),
        ]
    )
