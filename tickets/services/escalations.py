"""The AI agent hands a conversation to a human: the escalation ticket, its transcript as
the conversation, priority from the category, routed to a named owner as it goes in."""

from __future__ import annotations

import dataclasses
import functools
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Forbidden, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from tickets import routing, sla
from tickets.models import (
    Channel,
    Customer,
    Escalation,
    EscalationCategory,
    Message,
    MessageKind,
    Priority,
    Queue,
    SlaTarget,
    Status,
    Ticket,
)
from tickets.services._insert import NewTicket, insert_ticket
from tickets.services.conversation import customer_upsert

# How urgent each kind of hand-over is: a dispute (chargeback clock, angry customer) first,
# a customer merely preferring a human last but one.
CATEGORY_PRIORITY: dict[str, str] = {
    EscalationCategory.DISPUTE: Priority.URGENT,
    EscalationCategory.AGENT_FAILURE: Priority.HIGH,
    EscalationCategory.POLICY_EXCEPTION: Priority.HIGH,
    EscalationCategory.CUSTOMER_REQUEST: Priority.NORMAL,
    EscalationCategory.OUT_OF_SCOPE: Priority.LOW,
}
TRANSCRIPT_KINDS: dict[str, str] = {
    "customer": MessageKind.CUSTOMER,
    "user": MessageKind.CUSTOMER,
    "agent": MessageKind.AI_AGENT,
    "assistant": MessageKind.AI_AGENT,
    "system": MessageKind.SYSTEM,
    "tool": MessageKind.SYSTEM,
}


@dataclasses.dataclass(frozen=True)
class EscalationResult:
    ticket_id: int
    owner_id: int | None
    owner_name: str | None
    unrouted: bool
    priority: str
    queue: str

    @classmethod
    def of(cls, new: NewTicket, *, priority: str, queue: str) -> EscalationResult:
        owner = new.owner
        return cls(
            ticket_id=new.ticket.pk,
            owner_id=owner.operator_id if owner else None,
            owner_name=owner.operator_name if owner else None,
            unrouted=owner is None,
            priority=priority,
            queue=queue,
        )


# The escalation's queue and its SLA row for the priority in one read, in plain SQL: through
# the ORM it costs 0.7 ms of CPU instead of 0.08 as a FilteredRelation join, and as much
# plus a statement as two reads (bench/escalation_sql.py). It takes the queue's routing lock
# (routing.route_queue_for_new with queue_locked=True), only the queue row's: a LEFT JOIN's
# nullable side cannot be locked. Table names come from the models.
_ESCALATION_QUEUE_SQL = """
SELECT q.id, q.name, q.slug, q.capacity_per_operator,
       s.first_response_minutes, s.next_response_minutes, s.resolution_minutes
FROM {queue} q
LEFT JOIN {sla_target} s ON s.queue_id = q.id AND s.priority = %s
WHERE q.slug = %s{lock}
"""


@functools.cache
def _escalation_queue_sql(vendor: str, lock: bool) -> str:
    qn = connection.ops.quote_name
    return _ESCALATION_QUEUE_SQL.format(
        queue=qn(Queue._meta.db_table),
        sla_target=qn(SlaTarget._meta.db_table),
        lock=" FOR UPDATE OF q" if lock else "",
    )


def _escalation_queue(slug: str, priority: str) -> tuple[Queue, sla.Targets | None]:
    """The queue, locked for routing, with its SLA targets for `priority` read in the same
    query (the defaults when it has no SlaTarget row). None for the targets only when the
    default queue was just created (the caller then looks them up as usual)."""
    default = getattr(settings, "TICKETS_ESCALATION_QUEUE", "general")
    sql = _escalation_queue_sql(connection.vendor, routing.locks())
    with connection.cursor() as cursor:
        cursor.execute(sql, [priority, slug or default])
        row = cursor.fetchone()
    if row is None:
        if slug:
            raise ValidationFailed(
                gettext("Unknown queue."),
                fields={"queue": [gettext("No queue %(slug)r.") % {"slug": slug}]},
            )
        queue, _ = Queue.objects.get_or_create(slug=default, defaults={"name": default.title()})
        return queue, None
    queue = Queue.from_db(
        connection.alias, ["id", "name", "slug", "capacity_per_operator"], row[:4]
    )
    first, next_, resolution = row[4:]
    if first is None:
        return queue, sla.targets_for(priority)
    return queue, sla.Targets(first, next_, resolution)


def _tool_calls_valid(calls: Any) -> bool:
    if calls is None:
        return True
    return isinstance(calls, list) and all(
        isinstance(call, dict)
        and isinstance(call.get("name"), str)
        and call["name"].strip()
        and isinstance(call.get("arguments", {}), dict)
        for call in calls
    )


def _turns_with_tool_calls(
    transcript: list[dict[str, Any]],
) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The transcript's turns as messages, each with the tool calls the agent made in it.

    A "tool" turn that answers an earlier call (by its `tool_call_id`) is folded into that
    call as its result, or its error when `is_error`; one that answers nothing stays a turn
    of its own, shown as the tool's answer."""
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for turn in transcript:
        if turn["role"] == "tool" and turn.get("tool_call_id") in by_id:
            call = by_id[turn["tool_call_id"]]
            if turn.get("is_error"):
                call["error"] = str(turn.get("content", ""))
            else:
                call["result"] = turn.get("content", "")
            continue
        calls = []
        for raw in turn.get("tool_calls") or []:
            call = {"name": raw["name"].strip(), "arguments": raw.get("arguments") or {}}
            if "result" in raw:
                call["result"] = raw["result"]
            if raw.get("error"):
                call["error"] = str(raw["error"])
            if raw.get("id"):
                by_id[str(raw["id"])] = call
            calls.append(call)
        out.append((turn, calls))
    return out


def _check_escalation(
    *,
    category: str,
    required: dict[str, str],
    customer_given: bool,
    transcript: list[dict[str, Any]],
) -> None:
    """Every field's error at once: a known category, the required texts, someone to
    file it for, and a transcript whose turns the ticket page can show."""
    errors: dict[str, list[str]] = {}
    if category not in EscalationCategory.values:
        errors["category"] = [f"Not one of {EscalationCategory.values}."]
    for name, value in required.items():
        if not (value or "").strip():
            errors[name] = ["This field is required."]
    if not customer_given:
        errors["customer"] = ["Give at least a name, an email or an external id."]
    for index, turn in enumerate(transcript):
        if (
            not isinstance(turn, dict)
            or turn.get("role") not in TRANSCRIPT_KINDS
            or not (str(turn.get("content", "")).strip() or turn.get("tool_calls"))
        ):
            errors[f"transcript[{index}]"] = [
                f"Each turn needs a role ({', '.join(TRANSCRIPT_KINDS)}) and content "
                "(or, for the agent, tool calls)."
            ]
        elif not _tool_calls_valid(turn.get("tool_calls")):
            errors[f"transcript[{index}].tool_calls"] = [
                "Each tool call needs a name; its arguments are an object."
            ]
    if errors:
        raise ValidationFailed(gettext("The escalation is not valid."), fields=errors)


def _transcript_messages(
    ticket: Ticket, customer: Customer, transcript: list[dict[str, Any]], now: datetime
) -> list[Message]:
    """The transcript as the ticket's conversation (unsaved): the customer's turns under
    their name, the agent's with the tool calls it made. The escalation itself (category,
    reason, summary, what the customer wants) is the card at the top of the ticket page; it
    is not repeated as a message."""
    messages = []
    for turn, calls in _turns_with_tool_calls(transcript):
        kind = TRANSCRIPT_KINDS[turn["role"]]
        if kind == MessageKind.CUSTOMER:
            author = customer.name
        else:
            author = "AI agent" if turn["role"] in ("agent", "assistant") else "System"
        messages.append(
            Message(
                ticket=ticket,
                kind=kind,
                author_label=author,
                body=str(turn.get("content", "")).strip(),
                tool_calls=calls or None,
                created_at=now,
            )
        )
    return messages


def _subject(subject: str, summary: str) -> str:
    """The ticket's subject: the one given, else the agent's own summary, in the language of
    the customer's conversation (the customer's matter, read and searched as written). The
    category is not prefixed (it would be worded in the language of the agent's API
    request, whoever reads the ticket): pages show it beside the subject, in the reader's."""
    return (subject.strip() or summary.strip())[:300]


def _store_escalation(
    *,
    ticket: Ticket,
    customer: Customer,
    actor: Operator,
    category: str,
    reason: str,
    summary: str,
    transcript: list[dict[str, Any]],
    requested_action: str,
    conversation_id: str,
    now: datetime,
) -> None:
    """What the escalation adds to its new ticket: the escalation record, the card at the
    top of the ticket page (category, reason, summary, what the customer wants; it is not
    repeated as a message), and the transcript as the ticket's conversation."""
    Escalation.objects.create(
        ticket=ticket,
        category=category,
        reason=reason.strip(),
        summary=summary.strip(),
        transcript=transcript,
        requested_action=requested_action.strip()[:500],
        conversation_id=conversation_id[:100],
        created_by=actor,
        created_at=now,
    )
    Message.objects.bulk_create(_transcript_messages(ticket, customer, transcript, now))


def ticket_open_for_escalation(
    *,
    actor: Operator,
    customer_name: str,
    customer_email: str = "",
    customer_external_id: str = "",
    category: str,
    reason: str,
    summary: str,
    transcript: list[dict[str, Any]],
    requested_action: str,
    subject: str = "",
    queue_slug: str = "",
    conversation_id: str = "",
    tags: list[str] | None = None,
) -> EscalationResult:
    """The AI agent hands a conversation to a human: a ticket with the transcript as its
    conversation, priority from the category, routed to a named owner when anyone in the
    queue is on duty with capacity (else flagged unrouted)."""
    if not actor.is_service_principal:
        raise Forbidden(gettext("Escalations come from the AI agent's service principal."))
    _check_escalation(
        category=category,
        required={"reason": reason, "summary": summary, "requested_action": requested_action},
        customer_given=bool(customer_name or customer_email or customer_external_id),
        transcript=transcript,
    )
    priority = CATEGORY_PRIORITY[category]
    # No savepoint when nested (the API's idempotency wrapper already holds a transaction
    # and lets any error roll all of it back): two statements fewer per escalation.
    with transaction.atomic(savepoint=False):
        # The customer first: the queue row read next stays locked until the commit.
        customer = customer_upsert(
            name=customer_name, email=customer_email, external_id=customer_external_id
        )
        queue, targets = _escalation_queue(queue_slug, priority)
        now = timezone.now()
        new = insert_ticket(
            actor=actor,
            subject=_subject(subject, summary),
            customer=customer,
            queue=queue,
            priority=priority,
            channel=Channel.AI_AGENT,
            status=Status.ESCALATED,
            tags=[*(tags or []), "ai-escalation", category.replace("_", "-")],
            now=now,
            queue_locked=True,
            targets=targets,
        )
        _store_escalation(
            ticket=new.ticket,
            customer=customer,
            actor=actor,
            category=category,
            reason=reason,
            summary=summary,
            transcript=transcript,
            requested_action=requested_action,
            conversation_id=conversation_id,
            now=now,
        )
        result = EscalationResult.of(new, priority=priority, queue=queue.slug)
        audit_record(
            actor=actor,
            action="ticket.escalate",
            target=new.ticket,
            after={
                "category": category,
                "priority": priority,
                "queue": queue.slug,
                "owner": result.owner_id,
                "routed": [r.ticket_id for r in new.routed],
            },
        )
    return result


__all__ = [
    "CATEGORY_PRIORITY",
    "TRANSCRIPT_KINDS",
    "EscalationResult",
    "ticket_open_for_escalation",
]
