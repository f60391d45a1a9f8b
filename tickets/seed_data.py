"""What the demo inbox holds (tickets.seed creates it): the queues and their members, the
customers' tickets with what happens to each, and the conversations the AI agent escalates."""

from __future__ import annotations

from typing import Any

from tickets import sla

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
