"""Payments, refunds, reversals, the sandbox provider's ledger and reconciliation.

Amounts are integer minor units (BigIntegerField) next to an ISO 4217 code; see domain/money.py.
Every payment, refund, reversal and reconciliation report is stamped with the mode of the
process that created it, and a process refuses to touch rows of the other mode
(payments_sandbox.modes).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy

from payments_sandbox.domain import Money


class Mode(models.TextChoices):
    SANDBOX = "sandbox", gettext_lazy("Sandbox")
    LIVE = "live", gettext_lazy("Live")


class PaymentStatus(models.TextChoices):
    # Values equal payments_sandbox.domain.PaymentStatus.
    PENDING = "pending", gettext_lazy("Pending")
    CAPTURED = "captured", gettext_lazy("Captured")
    PARTIALLY_REFUNDED = "partially_refunded", gettext_lazy("Partially refunded")
    REFUNDED = "refunded", gettext_lazy("Refunded")
    REVERSED = "reversed", gettext_lazy("Reversed")
    FAILED = "failed", gettext_lazy("Failed")


class RefundStatus(models.TextChoices):
    # Values equal payments_sandbox.domain.RefundState; transitions live there.
    REQUESTED = "requested", gettext_lazy("Requested")
    REHEARSED = "rehearsed", gettext_lazy("Rehearsed")
    PENDING_APPROVAL = "pending_approval", gettext_lazy("Pending approval")
    APPROVED = "approved", gettext_lazy("Approved")
    PROCESSING = "processing", gettext_lazy("Processing")
    SUCCEEDED = "succeeded", gettext_lazy("Succeeded")
    FAILED = "failed", gettext_lazy("Failed")
    REJECTED = "rejected", gettext_lazy("Rejected")
    CANCELLED = "cancelled", gettext_lazy("Cancelled")


class PredictedOutcome(models.TextChoices):
    SUCCEED = "succeed", gettext_lazy("Will succeed")
    DECLINE = "decline", gettext_lazy("Will be declined")
    TIMEOUT = "timeout", gettext_lazy("Provider will time out (retried with the same key)")
    DELAYED = "delayed", gettext_lazy("Will settle later")


class Payment(models.Model):
    """A captured charge at the provider."""

    mode = models.CharField(max_length=8, choices=Mode.choices)
    reference = models.CharField(max_length=40, unique=True)
    provider_payment_id = models.CharField(max_length=80)
    customer_email = models.EmailField(blank=True)
    description = models.CharField(max_length=200, blank=True)
    currency = models.CharField(max_length=3)
    captured_amount = models.BigIntegerField()
    refunded_amount = models.BigIntegerField(default=0)
    status = models.CharField(
        max_length=20, choices=PaymentStatus.choices, default=PaymentStatus.CAPTURED
    )
    captured_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-captured_at", "-id"]
        indexes = [models.Index(fields=["mode", "-captured_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(captured_amount__gt=0), name="payment_captured_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(refunded_amount__gte=0)
                & models.Q(refunded_amount__lte=models.F("captured_amount")),
                name="payment_refunded_within_captured",
            ),
        ]
        permissions = [("reverse_payment", "Can reverse a captured payment")]

    def __str__(self) -> str:
        return f"{self.reference} {self.captured.format()}"

    @property
    def captured(self) -> Money:
        return Money(self.captured_amount, self.currency)

    @property
    def refunded(self) -> Money:
        return Money(self.refunded_amount, self.currency)


class Refund(models.Model):
    mode = models.CharField(max_length=8, choices=Mode.choices)
    payment = models.ForeignKey(Payment, on_delete=models.PROTECT, related_name="refunds")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    status = models.CharField(
        max_length=20, choices=RefundStatus.choices, default=RefundStatus.REQUESTED
    )
    reason = models.TextField()
    ticket = models.ForeignKey(
        "tickets.Ticket", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    requested_at = models.DateTimeField()
    # Sent with every provider call for this refund, so a retried or recovered call can
    # never create a second refund at the provider.
    provider_idempotency_key = models.CharField(max_length=64, unique=True)

    # The rehearsal against the sandbox adapter, shown to the approver.
    predicted_outcome = models.CharField(
        max_length=16, choices=PredictedOutcome.choices, blank=True
    )
    prediction_note = models.CharField(max_length=300, blank=True)
    refundable_before = models.BigIntegerField(null=True, blank=True)
    refundable_after = models.BigIntegerField(null=True, blank=True)
    refunded_after = models.BigIntegerField(null=True, blank=True)
    rehearsed_at = models.DateTimeField(null=True, blank=True)

    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    processing_started_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    provider_refund_id = models.CharField(max_length=80, blank=True)
    provider_status = models.CharField(max_length=20, blank=True)
    failure_reason = models.CharField(max_length=300, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [
            models.Index(fields=["mode", "status", "-requested_at"]),
            models.Index(fields=["payment", "status"]),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="refund_amount_positive")
        ]
        permissions = [
            ("request_refund", "Can request and preview refunds"),
            ("approve_refund", "Can approve or reject refunds requested by someone else"),
            ("cancel_refund", "Can cancel any refund that is not yet approved"),
        ]

    def __str__(self) -> str:
        return f"refund #{self.pk} {self.money.format()} ({self.status})"

    @property
    def money(self) -> Money:
        return Money(self.amount, self.currency)

    def money_or_none(self, minor: int | None) -> Money | None:
        return None if minor is None else Money(minor, self.currency)


class Reversal(models.Model):
    """The remaining balance of a payment returned in one go (a void or chargeback), which
    closes the payment to further refunds."""

    mode = models.CharField(max_length=8, choices=Mode.choices)
    payment = models.OneToOneField(Payment, on_delete=models.PROTECT, related_name="reversal")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"reversal of {self.payment_id}"

    @property
    def money(self) -> Money:
        return Money(self.amount, self.currency)


class ProviderRefundStatus(models.TextChoices):
    PENDING = "pending", gettext_lazy("Pending")
    SUCCEEDED = "succeeded", gettext_lazy("Succeeded")
    FAILED = "failed", gettext_lazy("Failed")


class SandboxProviderRefund(models.Model):
    """The simulated provider's own ledger of refunds: what the provider would report.

    Only SandboxAdapter writes here, and only as the provider would: a row exists as soon as
    the provider accepted a refund, whether or not our side heard back. Recovery and
    reconciliation read it through the adapter, exactly as they read Stripe in live mode.
    """

    provider_refund_id = models.CharField(max_length=40, unique=True)
    idempotency_key = models.CharField(max_length=64, unique=True)
    provider_payment_id = models.CharField(max_length=80)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16, choices=ProviderRefundStatus.choices)
    failure_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(db_index=True)
    settles_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.provider_refund_id} {self.status}"


class ReconciliationReport(models.Model):
    mode = models.CharField(max_length=8, choices=Mode.choices)
    period_start = models.DateField()
    period_end = models.DateField()
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    compared = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        permissions = [("resolve_reconciliation", "Can run reconciliation and resolve items")]

    def __str__(self) -> str:
        return f"reconciliation {self.period_start}..{self.period_end}"


class MismatchKind(models.TextChoices):
    MISSING = "missing", gettext_lazy("Missing at provider")
    EXTRA = "extra", gettext_lazy("Unknown to our ledger")
    AMOUNT = "amount", gettext_lazy("Amount differs")
    CURRENCY = "currency", gettext_lazy("Currency differs")
    STATUS = "status", gettext_lazy("Status differs")


class ReconciliationItem(models.Model):
    report = models.ForeignKey(ReconciliationReport, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16, choices=MismatchKind.choices)
    refund = models.ForeignKey(
        Refund, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    provider_refund_id = models.CharField(max_length=80, blank=True)
    idempotency_key = models.CharField(max_length=64, blank=True)
    ours = models.JSONField(default=dict, blank=True)
    theirs = models.JSONField(default=dict, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution_note = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} ({self.idempotency_key or self.provider_refund_id})"

    @property
    def is_resolved(self) -> bool:
        return self.resolved_at is not None
