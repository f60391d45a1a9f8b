"""The inbox's part of `seed_demo`: queues, duty, and realistic tickets across queues,
priorities, statuses and SLA states, some escalated by the AI agent with transcripts, some
with notes that @mention colleagues.

Everything is created through the services (so the audit trail and timelines are real),
then moved back in time with `_backdate` so the SLA clocks show a lived-in inbox: some
tickets breached, some near breach, some paused. Idempotent: queues are upserted and the
tickets are created only once (recognised by the demo customers' external ids); a rerun
that changes nothing writes nothing.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import F

from identity.models import Operator
from tickets import services
from tickets.models import Customer, Message, OperatorAvailability, Queue, Ticket, TicketEvent
from tickets.seed_data import BILLING_TARGETS, ESCALATIONS, MEMBERS, QUEUES, TICKETS


def _backdate(ticket_id: int, minutes: int) -> None:
    """Shift a freshly created demo ticket `minutes` into the past (timestamps, due times,
    messages and timeline alike), so its SLA state reflects its age."""
    delta = dt.timedelta(minutes=minutes)
    shift = {
        name: F(name) - delta
        for name in (
            "created_at",
            "updated_at",
            "assigned_at",
            "last_customer_message_at",
            "first_responded_at",
            "resolved_at",
            "closed_at",
            "first_response_due_at",
            "next_response_due_at",
            "resolution_due_at",
            "sla_next_due_at",
            "sla_paused_since",
        )
    }
    Ticket.objects.filter(pk=ticket_id).update(**shift)
    Message.objects.filter(ticket_id=ticket_id).update(created_at=F("created_at") - delta)
    TicketEvent.objects.filter(ticket_id=ticket_id).update(created_at=F("created_at") - delta)


def _v(ticket_id: int) -> int:
    return Ticket.objects.values_list("version", flat=True).get(pk=ticket_id)


def seed(*, operators: dict[str, Operator]) -> list[str]:
    sam, alice, carol = operators.get("sam"), operators.get("alice"), operators.get("carol")
    if not (sam and alice and carol):
        return ["Tickets: demo operators alice, carol and sam are missing; no demo tickets."]
    queues = _seed_queues(operators)
    if Customer.objects.filter(external_id__startswith="demo-").exists():
        return ["Tickets: demo queues and tickets already present."]
    for operator in (alice, carol):
        OperatorAvailability.objects.get_or_create(operator=operator)
    services.operator_duty_set(actor=alice, on_duty=True)
    services.operator_duty_set(actor=carol, on_duty=True)
    created = _seed_tickets(queues, sam)
    principal = (
        operators.get("agent-runtime") or Operator.objects.filter(username="agent-runtime").first()
    )
    escalated = _seed_escalations(principal) if principal is not None else 0
    services.operator_duty_set(actor=carol, on_duty=False)
    changes = services.sla_evaluate()
    return [
        f"Tickets: {len(queues)} queues, {created} tickets, {escalated} AI escalations; "
        f"{len(changes)} SLA flags raised. Alice is on duty, Carol off duty."
    ]


def _seed_queues(operators: dict[str, Operator]) -> dict[str, Queue]:
    """The demo queues by slug, created or brought back to the demo's settings."""
    queues = {}
    for name, slug, description, capacity in QUEUES:
        members = [operators[u] for u in MEMBERS[slug]]
        targets = BILLING_TARGETS if slug == "billing" else None
        existing = Queue.objects.filter(slug=slug).first()
        if existing is None:
            queues[slug] = services.queue_create(
                actor=None,
                name=name,
                slug=slug,
                description=description,
                capacity_per_operator=capacity,
                member_ids=[m.pk for m in members],
                targets=targets,
            )
            continue
        # A rerun: bring the queue back to the demo's settings, keeping members added since
        # (queue_update writes, audits and routes only what actually differs).
        kept = set(existing.memberships.values_list("operator_id", flat=True))
        queues[slug] = services.queue_update(
            actor=None,
            queue_id=existing.pk,
            name=name,
            description=description,
            capacity_per_operator=capacity,
            member_ids=kept | {m.pk for m in members},
            targets=targets,
        ).queue
    return queues


def _seed_tickets(queues: dict[str, Queue], sam: Operator) -> int:
    """Open the customers' tickets, play each one's plan and age it; return how many."""
    created = 0
    for index, (subject, name, slug, priority, body, age, plan) in enumerate(TICKETS, start=1):
        with transaction.atomic():
            email = name.lower().replace(" ", ".") + "@example.test"
            ticket = services.ticket_open_for_customer(
                actor=sam,
                subject=subject,
                customer_message=body,
                customer_name=name,
                customer_email=email,
                customer_external_id=f"demo-{index}",
                queue_id=queues[slug].pk,
                priority=priority,
                tags=["demo"] if index % 4 == 0 else None,
            )
            owner = Ticket.objects.select_related("assignee").get(pk=ticket.pk).assignee or sam
            _play(plan, ticket.pk, owner, sam)
            _backdate(ticket.pk, age)
            created += 1
    return created


def _seed_escalations(principal: Operator) -> int:
    """Hand the demo conversations over as the AI agent's service principal; return how many."""
    escalated = 0
    for item in ESCALATIONS:
        name, email, external_id = item["customer"]
        result = services.ticket_open_for_escalation(
            actor=principal,
            customer_name=name,
            customer_email=email,
            customer_external_id=external_id,
            category=item["category"],
            reason=item["reason"],
            summary=item["summary"],
            transcript=[{"role": r, "content": c} for r, c in item["transcript"]],
            requested_action=item["requested_action"],
            queue_slug=item["queue"],
        )
        _backdate(result.ticket_id, item["age"])
        escalated += 1
    return escalated


def _play(plan: str, ticket_id: int, owner: Operator, sam: Operator) -> None:
    if plan in ("reply", "pending", "resolved", "hold"):
        services.ticket_reply(
            actor=owner,
            ticket_id=ticket_id,
            body="Thanks for reaching out. I'm looking into this now and will update you shortly.",
            expected_version=_v(ticket_id),
            status={"pending": "pending_customer", "resolved": "resolved", "hold": "on_hold"}.get(
                plan, ""
            ),
        )
    if plan == "note":
        services.ticket_note_add(
            actor=owner,
            ticket_id=ticket_id,
            body="@sam this looks like a goodwill case, OK to offer a 10% voucher? "
            "@carol saw the same last week.",
            expected_version=_v(ticket_id),
        )
    if plan == "reply":
        services.ticket_customer_message_add(
            actor=sam, ticket_id=ticket_id, body="Any news? It has been a while."
        )
    if plan == "open":
        services.ticket_status_set(
            actor=owner, ticket_id=ticket_id, status="open", expected_version=_v(ticket_id)
        )
        services.ticket_tags_set(
            actor=owner,
            ticket_id=ticket_id,
            tags=["travel", "pause"],
            expected_version=_v(ticket_id),
        )
