"""Payments' part of `seed_demo`: payments in several currencies and refunds in every state,
plus a reconciliation report with a mismatch to resolve. Safe to run again."""

from __future__ import annotations

import datetime as dt
import uuid

from django.db import transaction
from django.utils import timezone

from identity.models import Operator
from payments_sandbox.domain import Money
from payments_sandbox.models import (
    Payment,
    ProviderRefundStatus,
    Refund,
    RefundStatus,
    SandboxProviderRefund,
)
from payments_sandbox.modes import SANDBOX, current_mode
from payments_sandbox.services import (
    payment_capture,
    reconcile_run,
    refund_approve,
    refund_cancel,
    refund_execute,
    refund_reject,
    refund_request,
)

PAYMENTS = [
    ("DEMO-USD-1", "120.00", "USD", "maria@example.test", "Espresso machine"),
    ("DEMO-USD-2", "45.50", "USD", "tom@example.test", "Annual membership"),
    ("DEMO-EUR-1", "80.00", "EUR", "lena@example.test", "Hiking boots"),
    ("DEMO-JPY-1", "15000", "JPY", "ken@example.test", "Tea set"),
    ("DEMO-KWD-1", "25.500", "KWD", "fahad@example.test", "Noise-cancelling headphones"),
    ("DEMO-GBP-1", "60.00", "GBP", "olivia@example.test", "Cooking class"),
]


def seed(*, operators: dict[str, Operator]) -> list[str]:
    if current_mode() != SANDBOX:
        return ["Payments: live mode, no demo payments created."]
    if Payment.objects.filter(reference__startswith="DEMO-").exists():
        return ["Payments: demo payments already present."]
    agent = operators.get("alice") or Operator.objects.get(username="alice")
    runtime = operators.get("agent-runtime") or agent
    approver = operators.get("bob") or Operator.objects.get(username="bob")
    supervisor = operators.get("sam") or Operator.objects.get(username="sam")

    p = {
        ref: payment_capture(
            actor=None,
            amount=Money.parse(amount, currency),
            customer_email=email,
            description=description,
            reference=ref,
        )
        for ref, amount, currency, email, description in PAYMENTS
    }

    def ask(ref: str, amount: str, reason: str, actor: Operator = agent) -> Refund:
        return refund_request(actor=actor, payment_id=p[ref].pk, amount=amount, reason=reason)

    # Waiting for an approver (one from a human agent, two from the AI agent's runtime).
    ask("DEMO-USD-1", "20.00", "Arrived with a dented water tank.")
    ask("DEMO-EUR-1", "80.00", "Wrong size; customer returned them unworn.", runtime)
    ask("DEMO-KWD-1", "5.125", "Partial refund for a missing carry case.", runtime)
    # Decided and executed. Executing here as well as from the approval's on-commit hand-off
    # keeps the demo data identical with or without a Celery broker (execution is idempotent).
    for ref, amount, reason, note in (
        ("DEMO-JPY-1", "3000", "One cup arrived broken.", "Photo confirms the damage."),
        ("DEMO-USD-2", "10.13", "Prorated membership refund.", ""),  # the sandbox declines it
        ("DEMO-GBP-1", "20.07", "Class moved to another date.", ""),  # settles later
    ):
        refund = refund_approve(actor=approver, refund_id=ask(ref, amount, reason).pk, reason=note)
        refund_execute(refund_id=refund.pk)
    refund_reject(
        actor=approver,
        refund_id=ask("DEMO-USD-1", "100.00", "Customer changed their mind.").pk,
        reason="Outside the 30-day window.",
    )
    refund_cancel(actor=agent, refund_id=ask("DEMO-GBP-1", "5.00", "Duplicate request.").pk)

    # requested, rehearsed and approved are states a refund passes through inside one
    # transaction (or until a worker picks it up); pin one of each so the UI shows them.
    with transaction.atomic():
        for status, amount in (
            (RefundStatus.REQUESTED, "1.00"),
            (RefundStatus.REHEARSED, "2.00"),
            (RefundStatus.APPROVED, "3.00"),
        ):
            refund = ask("DEMO-USD-1", amount, f"Demo refund pinned in state {status}.")
            Refund.objects.filter(pk=refund.pk).update(
                status=status, decided_by=approver if status == RefundStatus.APPROVED else None
            )

    # A refund the provider made that our ledger never heard of: reconciliation's "extra".
    SandboxProviderRefund.objects.create(
        provider_refund_id=f"sre_{uuid.uuid4().hex[:24]}",
        idempotency_key=f"external-{uuid.uuid4().hex[:8]}",
        provider_payment_id=p["DEMO-EUR-1"].provider_payment_id,
        amount=1500,
        currency="EUR",
        status=ProviderRefundStatus.SUCCEEDED,
        created_at=timezone.now(),
    )
    today = timezone.now().date()
    report = reconcile_run(actor=supervisor, date_from=today - dt.timedelta(days=1), date_to=today)

    counts = {
        status: Refund.objects.filter(status=status).count() for status in RefundStatus.values
    }
    summary = ", ".join(f"{status} {count}" for status, count in counts.items() if count)
    return [
        f"Payments: {len(p)} demo payments (USD, EUR, JPY, KWD, GBP); refunds: {summary}.",
        f"Payments: reconciliation report #{report.pk} with {report.items.count()} mismatch(es).",
    ]
