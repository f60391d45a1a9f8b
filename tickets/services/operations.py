"""The AI agent's escalations, duty and routing, the SLA beat job, notification state."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Forbidden, NotFound, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from tickets import access, routing, sla
from tickets.models import (
    ACTIVE_STATUSES,
    Channel,
    Escalation,
    EscalationCategory,
    Message,
    MessageKind,
    Notification,
    NotificationKind,
    OperatorAvailability,
    OperatorLoad,
    Priority,
    Queue,
    QueueMembership,
    SlaTarget,
    Status,
    Ticket,
    TicketEvent,
    TicketEventKind,
    TicketPresence,
)
from tickets.notifications import notify
from tickets.services import _common as c
from tickets.services.conversation import create_ticket_row, customer_upsert

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


# The escalation's queue and its SLA row for the priority in one read, in plain SQL (through
# the ORM, a FilteredRelation join, ~0.6 ms of CPU to build per escalation); it takes the
# queue's routing lock (routing.route_queue_for_new with queue_locked=True), only the queue
# row's: a LEFT JOIN's nullable side cannot be locked.
_ESCALATION_QUEUE_SQL = """
SELECT q.id, q.name, q.slug, q.capacity_per_operator,
       s.first_response_minutes, s.next_response_minutes, s.resolution_minutes
FROM tickets_queue q
LEFT JOIN tickets_slatarget s ON s.queue_id = q.id AND s.priority = %s
WHERE q.slug = %s{lock}
"""


def _escalation_queue(slug: str, priority: str) -> tuple[Queue, sla.Targets | None]:
    """The queue, locked for routing, with its SLA targets for `priority` read in the same
    query (the defaults when it has no SlaTarget row). None for the targets only when the
    default queue was just created (the caller then looks them up as usual)."""
    default = getattr(settings, "TICKETS_ESCALATION_QUEUE", "general")
    lock = " FOR UPDATE OF q" if routing.locks() else ""
    with connection.cursor() as cursor:
        cursor.execute(_ESCALATION_QUEUE_SQL.format(lock=lock), [priority, slug or default])
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


def escalation_create(
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
    errors: dict[str, list[str]] = {}
    if category not in EscalationCategory.values:
        errors["category"] = [f"Not one of {EscalationCategory.values}."]
    for name, value in (
        ("reason", reason),
        ("summary", summary),
        ("requested_action", requested_action),
    ):
        if not (value or "").strip():
            errors[name] = ["This field is required."]
    if not (customer_name or customer_email or customer_external_id):
        errors["customer"] = ["Give at least a name, an email or an external id."]
    for index, turn in enumerate(transcript):
        if (
            not isinstance(turn, dict)
            or turn.get("role") not in TRANSCRIPT_KINDS
            or not str(turn.get("content", "")).strip()
        ):
            errors[f"transcript[{index}]"] = [
                f"Each turn needs a role ({', '.join(TRANSCRIPT_KINDS)}) and content."
            ]
    if errors:
        raise ValidationFailed(gettext("The escalation is not valid."), fields=errors)
    priority = CATEGORY_PRIORITY[category]
    label = EscalationCategory(category).label
    # No savepoint when nested (the API's idempotency wrapper already holds a transaction
    # and lets any error roll all of it back): two statements fewer per escalation.
    with transaction.atomic(savepoint=False):
        # The customer first: the queue row read next stays locked until the commit.
        customer = customer_upsert(
            name=customer_name, email=customer_email, external_id=customer_external_id
        )
        queue, targets = _escalation_queue(queue_slug, priority)
        now = timezone.now()
        new = create_ticket_row(
            actor=actor,
            subject=subject.strip() or f"{label}: {summary.strip()}"[:300],
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
        ticket, owner = new.ticket, new.owner
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
        Message.objects.bulk_create(
            [
                Message(
                    ticket=ticket,
                    kind=TRANSCRIPT_KINDS[turn["role"]],
                    author_label=customer.name
                    if TRANSCRIPT_KINDS[turn["role"]] == MessageKind.CUSTOMER
                    else ("AI agent" if turn["role"] in ("agent", "assistant") else "System"),
                    body=str(turn["content"]).strip(),
                    created_at=now,
                )
                for turn in transcript
            ]
            + [
                Message(
                    ticket=ticket,
                    kind=MessageKind.SYSTEM,
                    author_label="AI agent",
                    body=(
                        f"Escalated by the AI agent ({label}). Reason: {reason.strip()}\n"
                        f"Summary: {summary.strip()}\n"
                        f"Customer wants: {requested_action.strip()}"
                    ),
                    created_at=now,
                )
            ]
        )
        result = EscalationResult(
            ticket_id=ticket.pk,
            owner_id=owner.operator_id if owner else None,
            owner_name=owner.operator_name if owner else None,
            unrouted=owner is None,
            priority=priority,
            queue=queue.slug,
        )
        audit_record(
            actor=actor,
            action="ticket.escalate",
            target=ticket,
            after={
                "category": category,
                "priority": priority,
                "queue": queue.slug,
                "owner": result.owner_id,
                "routed": [r.ticket_id for r in new.routed],
            },
        )
    return result


def operator_duty_set(
    *,
    actor: Operator,
    on_duty: bool,
    operator_id: int | None = None,
    capacity_override: int | None = None,
    clear_capacity_override: bool = False,
) -> list[routing.Routed]:
    """Go on or off duty (supervisors may do it for others). Going on duty routes the
    waiting tickets of the operator's queues at once. Going off duty keeps the tickets one
    already owns; a supervisor reassigns them if needed."""
    target_id = operator_id or actor.pk
    if target_id != actor.pk and not access.can_reassign(actor):
        raise Forbidden(gettext("Only a supervisor may change another operator's duty."))
    if capacity_override is not None and capacity_override < 0:
        raise ValidationFailed(
            gettext("Capacity cannot be negative."),
            fields={"capacity_override": [gettext("Must be ≥ 0.")]},
        )
    with transaction.atomic():
        operator = Operator.objects.filter(pk=target_id, is_active=True).first()
        if operator is None or operator.is_service_principal:
            raise NotFound(gettext("No such operator."))
        availability, _ = OperatorAvailability.objects.select_for_update().get_or_create(
            operator=operator
        )
        before = {
            "on_duty": availability.on_duty,
            "capacity_override": availability.capacity_override,
        }
        availability.on_duty = on_duty
        if clear_capacity_override:
            availability.capacity_override = None
        elif capacity_override is not None:
            availability.capacity_override = capacity_override
        availability.save()
        routed: list[routing.Routed] = []
        if on_duty:
            routed = routing.route_queues(routing.queues_of(operator.pk))
        audit_record(
            actor=actor,
            action="operator.duty",
            target=operator,
            before=before,
            after={
                "on_duty": on_duty,
                "capacity_override": availability.capacity_override,
                "routed": [r.ticket_id for r in routed],
            },
        )
    return routed


def tickets_route_unrouted() -> list[routing.Routed]:
    """The beat sweep: route every queue that has waiting tickets (a safety net behind the
    event-driven routing). Audited as the system, only when it routed something."""
    with transaction.atomic():
        queue_ids = list(
            Ticket.objects.filter(unrouted=True, assignee__isnull=True, status__in=ACTIVE_STATUSES)
            .values_list("queue_id", flat=True)
            .distinct()
        )
        routed = routing.route_queues(queue_ids)
        if routed:
            audit_record(
                actor=None,
                action="ticket.route_sweep",
                target_type="tickets.queue",
                target_id=",".join(str(q) for q in sorted(set(queue_ids)))[:80],
                after={"routed": {str(r.ticket_id): r.operator_id for r in routed}},
            )
    return routed


def operator_loads_recount(*, actor: Operator | None = None) -> dict[int, int]:
    """The repair path behind the load counters: recount every operator's active tickets
    from the tickets (tickets.routing.load_recount), then route the queues of anyone whose
    counter was too high (they had capacity routing could not see). Returns {operator id:
    corrected count}; audited only when something was corrected, which the triggers of
    migration 0006 should make never happen."""
    with transaction.atomic():
        # Lock order (see tickets.routing): queues before load rows.
        routing.lock_queues(Queue.objects.values_list("pk", flat=True))
        before = dict(OperatorLoad.objects.values_list("operator_id", "active_tickets"))
        wrong = routing.load_recount()
        freed = [pk for pk, count in wrong.items() if count < before.get(pk, 0)]
        routed = routing.route_queues(
            QueueMembership.objects.filter(operator_id__in=freed).values_list("queue_id", flat=True)
        )
        if wrong:
            audit_record(
                actor=actor,
                action="ticket.load_recount",
                target_type="tickets.operatorload",
                target_id="all",
                before={str(pk): before.get(pk, 0) for pk in wrong},
                after={
                    "corrected": {str(pk): count for pk, count in wrong.items()},
                    "routed": [r.ticket_id for r in routed],
                },
            )
    return wrong


# The widest near-breach window of any target: 20% of the longest default resolution
# target. Tickets further than this from their next deadline cannot change state now.
_SCAN_WINDOW = dt.timedelta(days=30)


@dataclasses.dataclass(frozen=True)
class SlaChange:
    ticket_id: int
    state: str


def sla_evaluate(*, now: dt.datetime | None = None, limit: int = 2000) -> list[SlaChange]:
    """The beat job (every minute): raise near-breach and breached flags on running clocks
    that crossed a threshold, put it on the timeline and notify the owner (in-app and by
    email). Clearing flags happens when a reply or status change meets the clock.

    Rows an operator is changing right now are skipped (SKIP LOCKED) rather than waited
    for; the next minute's run evaluates them."""
    now = now or timezone.now()
    changes: list[SlaChange] = []
    with transaction.atomic():
        candidates = list(
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
        if not candidates:
            return []
        overrides: dict[tuple[int, str], sla.Targets] = {
            (row.queue_id, row.priority): sla.Targets(
                row.first_response_minutes, row.next_response_minutes, row.resolution_minutes
            )
            for row in SlaTarget.objects.filter(queue_id__in={t.queue_id for t in candidates})
        }
        for ticket in candidates:
            key = (ticket.queue_id, ticket.priority)
            targets = overrides.get(key) or sla.targets_for(ticket.priority)
            evaluation = sla.evaluate(c.clock_of(ticket), targets, now)
            if evaluation.breached:
                state, kind, title = "breached", NotificationKind.SLA_BREACH, "SLA breached"
            elif evaluation.near_breach and not ticket.sla_near_breach:
                state, kind, title = (
                    "near_breach",
                    NotificationKind.SLA_NEAR_BREACH,
                    "SLA near breach",
                )
            else:
                continue
            Ticket.objects.filter(pk=ticket.pk).update(
                sla_breached=state == "breached", sla_near_breach=state == "near_breach"
            )
            TicketEvent.objects.create(
                ticket=ticket,
                kind=TicketEventKind.SLA,
                actor=None,
                actor_label="SLA",
                before={"near_breach": ticket.sla_near_breach, "breached": ticket.sla_breached},
                after={"state": state, "due": ticket.sla_next_due_at},
                summary=f"{title} (due {ticket.sla_next_due_at:%Y-%m-%d %H:%M} UTC)",
                version=ticket.version,
                created_at=now,
            )
            if ticket.assignee is not None:
                notify(
                    recipient=ticket.assignee,
                    kind=kind,
                    title=f"{title}: ticket #{ticket.pk}",
                    body=f"{ticket.subject}\nDue {ticket.sla_next_due_at:%Y-%m-%d %H:%M} UTC.",
                    url=c.ticket_url(ticket.pk),
                )
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


def notifications_mark_read(*, actor: Operator, notification_ids: list[int] | None = None) -> int:
    """Mark the actor's notifications read: the ones given, or all unread ones."""
    with transaction.atomic():
        query = Notification.objects.filter(recipient=actor, read_at__isnull=True)
        if notification_ids is not None:
            query = query.filter(pk__in=notification_ids)
        count = query.update(read_at=timezone.now())
        if count:
            audit_record(
                actor=actor,
                action="notification.read",
                target_type="tickets.notification",
                target_id="all"
                if notification_ids is None
                else ",".join(map(str, notification_ids))[:80],
                after={"count": count},
            )
    return count


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


def queue_create(
    *,
    actor: Operator | None,
    name: str,
    slug: str,
    capacity_per_operator: int = 10,
    description: str = "",
    members: list[Operator] | None = None,
    targets: dict[str, sla.Targets] | None = None,
) -> Queue:
    """Create a queue (or update the one with this slug), its members and SLA targets."""
    if actor is not None and not actor.has_perm("tickets.manage_queues"):
        raise Forbidden(gettext("You may not manage queues."))
    with transaction.atomic():
        queue, created = Queue.objects.update_or_create(
            slug=slug,
            defaults={
                "name": name,
                "capacity_per_operator": capacity_per_operator,
                "description": description,
            },
        )
        for member in members or []:
            QueueMembership.objects.get_or_create(queue=queue, operator=member)
        for priority, target in (targets or {}).items():
            SlaTarget.objects.update_or_create(
                queue=queue,
                priority=priority,
                defaults={
                    "first_response_minutes": target.first_response,
                    "next_response_minutes": target.next_response,
                    "resolution_minutes": target.resolution,
                },
            )
        audit_record(
            actor=actor,
            action="queue.create" if created else "queue.update",
            target=queue,
            after={
                "name": name,
                "capacity_per_operator": capacity_per_operator,
                "members": [m.pk for m in members or []],
                "targets": {p: dataclasses.asdict(t) for p, t in (targets or {}).items()},
            },
        )
    return queue


__all__ = [
    "CATEGORY_PRIORITY",
    "EscalationResult",
    "escalation_create",
    "notifications_mark_read",
    "operator_duty_set",
    "operator_loads_recount",
    "presence_touch",
    "queue_create",
    "sla_evaluate",
    "tickets_route_unrouted",
]
