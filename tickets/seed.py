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
from typing import Any

from django.db import transaction
from django.db.models import F

from identity.models import Operator
from tickets import services, sla
from tickets.models import Customer, Message, OperatorAvailability, Queue, Ticket, TicketEvent

QUEUES = [
    ("Returns & refunds", "returns", "Returns, exchanges and refund questions", 8),
    ("Billing", "billing", "Charges, invoices, disputes and payment methods", 6),
    ("Memberships", "memberships", "Plans, renewals, pauses and cancellations", 8),
    ("General", "general", "Everything else, and the AI agent's default hand-over queue", 10),
]
# queue slug -> usernames of its members
MEMBERS = {
    "returns": ["alice", "carol", "sam"],
    "billing": ["alice", "sam"],
    "memberships": ["carol", "sam"],
    "general": ["alice", "carol", "sam"],
}
BILLING_TARGETS = {"urgent": sla.Targets(20, 45, 180), "high": sla.Targets(45, 90, 360)}

# (subject, customer, queue, priority, first message, age in minutes, what happens next)
TICKETS: list[tuple[str, str, str, str, str, int, str]] = [
    (
        "Parcel marked delivered but never arrived",
        "Nina Park",
        "returns",
        "high",
        "Tracking says delivered yesterday, nothing at my door or with neighbours.",
        300,
        "breach",
    ),
    (
        "Wrong size sent, need exchange",
        "Omar Haddad",
        "returns",
        "normal",
        "I ordered the M jacket and got an XL. Can I swap it?",
        215,
        "near",
    ),
    (
        "Refund not received after return",
        "Lena Vogel",
        "returns",
        "normal",
        "You received my return two weeks ago (RMA 5521) and I still have no refund.",
        40,
        "reply",
    ),
    (
        "Return label does not print",
        "Jamal Reed",
        "returns",
        "low",
        "The PDF label is blank when I print it.",
        600,
        "pending",
    ),
    (
        "Damaged item in parcel",
        "Priya Shah",
        "returns",
        "high",
        "The vase arrived in pieces. Photos attached.",
        25,
        "note",
    ),
    (
        "Double charge on card",
        "Marco Rossi",
        "billing",
        "urgent",
        "I was charged twice for order 88123, EUR 129.00 each.",
        50,
        "breach",
    ),
    (
        "Invoice needs company VAT number",
        "Sofia Lind",
        "billing",
        "low",
        "Please reissue invoice INV-2207 with our VAT number SE556677889901.",
        1500,
        "resolved",
    ),
    (
        "Card declined but money taken",
        "Tom Becker",
        "billing",
        "high",
        "Checkout said declined, but my bank shows a pending EUR 59.90.",
        36,
        "near",
    ),
    (
        "Change payment method",
        "Aiko Tanaka",
        "billing",
        "normal",
        "How do I switch from card to PayPal for renewals?",
        90,
        "hold",
    ),
    (
        "Annual plan renewed without notice",
        "Hugo Martin",
        "memberships",
        "high",
        "I was charged EUR 99 for a renewal I did not expect. I want to cancel.",
        70,
        "reply",
    ),
    (
        "Pause membership for 2 months",
        "Greta Olsen",
        "memberships",
        "normal",
        "I'm travelling in July and August; can I pause?",
        30,
        "open",
    ),
    (
        "Student discount verification",
        "Leo Dubois",
        "memberships",
        "low",
        "My student ID upload keeps failing.",
        2000,
        "resolved",
    ),
    (
        "Cannot log in to my account",
        "Maya Cohen",
        "general",
        "normal",
        "Password reset emails never arrive.",
        10,
        "new",
    ),
    (
        "Feedback on the new app",
        "Ivan Petrov",
        "general",
        "low",
        "The new app is great but dark mode is missing.",
        240,
        "note",
    ),
    (
        "Question about store opening hours",
        "Eva Novak",
        "general",
        "low",
        "Is the Berlin store open on public holidays?",
        5,
        "new",
    ),
]
ESCALATIONS: list[dict[str, Any]] = [
    {
        "customer": ("Rosa Alvarez", "rosa.alvarez@example.test", "demo-esc-1"),
        "category": "dispute",
        "reason": "Customer says the charge is fraudulent and threatens a chargeback; "
        "disputes are outside my authority.",
        "summary": "Unrecognised EUR 240.00 charge on 3 March; card ending 4421.",
        "requested_action": "Refund EUR 240.00 and block the card on file",
        "queue": "billing",
        "age": 45,
        "transcript": [
            ("customer", "There is a charge of 240 euros I never made!"),
            (
                "assistant",
                "I'm sorry. I can see a charge of EUR 240.00 on 3 March. Can you "
                "confirm the last four digits of your card?",
            ),
            ("customer", "4421. I want my money back now or I call my bank."),
            (
                "assistant",
                "I understand. Disputed charges are handled by a colleague; I'm "
                "passing this on with everything you told me.",
            ),
        ],
    },
    {
        "customer": ("Ben Carter", "ben.carter@example.test", "demo-esc-2"),
        "category": "policy_exception",
        "reason": "Return requested 41 days after delivery; policy allows 30.",
        "summary": "Unworn boots, customer was in hospital during the return window.",
        "requested_action": "Accept the late return and refund EUR 149.00",
        "queue": "returns",
        "age": 20,
        "transcript": [
            ("customer", "I need to return boots I got in January, I was in hospital."),
            (
                "assistant",
                "Our policy allows returns within 30 days; your order was delivered "
                "41 days ago. I can't approve an exception myself.",
            ),
            ("customer", "Please ask someone, they are unworn."),
        ],
    },
    {
        "customer": ("Chen Wei", "chen.wei@example.test", "demo-esc-3"),
        "category": "agent_failure",
        "reason": "The order lookup tool failed three times.",
        "summary": "Customer wants delivery status of order 77410; tools unavailable.",
        "requested_action": "Tell the customer where order 77410 is",
        "queue": "general",
        "age": 5,
        "transcript": [
            ("customer", "Where is my order 77410?"),
            ("assistant", "I'm having trouble looking that up right now."),
            ("tool", "order_lookup: upstream timeout (3 attempts)"),
            ("assistant", "I'll hand you to a colleague who can check directly."),
        ],
    },
    {
        "customer": ("Fatima Zahra", "fatima.zahra@example.test", "demo-esc-4"),
        "category": "customer_request",
        "reason": "Customer asked for a human twice.",
        "summary": "Wants to discuss a family plan; prefers to talk to a person.",
        "requested_action": "Call back about a family membership",
        "queue": "memberships",
        "age": 120,
        "transcript": [
            ("customer", "Can I talk to a real person please?"),
            ("assistant", "Of course. Could you tell me briefly what it is about?"),
            ("customer", "A family plan for 4 people. Human please."),
        ],
    },
]


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
    if Customer.objects.filter(external_id__startswith="demo-").exists():
        return ["Tickets: demo queues and tickets already present."]
    for operator in (alice, carol):
        OperatorAvailability.objects.get_or_create(operator=operator)
    services.operator_duty_set(actor=alice, on_duty=True)
    services.operator_duty_set(actor=carol, on_duty=True)
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
    principal = (
        operators.get("agent-runtime") or Operator.objects.filter(username="agent-runtime").first()
    )
    escalated = 0
    if principal is not None:
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
    services.operator_duty_set(actor=carol, on_duty=False)
    changes = services.sla_evaluate()
    return [
        f"Tickets: {len(queues)} queues, {created} tickets, {escalated} AI escalations; "
        f"{len(changes)} SLA flags raised. Alice is on duty, Carol off duty."
    ]


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
