"""API input and output shapes. Amounts travel as decimal strings ("12.34") next to their
currency; a JSON number is refused, so no float ever carries money."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments_sandbox import selectors
from payments_sandbox.domain import Money, refundable
from payments_sandbox.models import Payment, ReconciliationItem, ReconciliationReport, Refund
from payments_sandbox.services import RefundPreview


class AmountField(serializers.CharField):
    default_error_messages = {
        "not_string": 'Give the amount as a decimal string, e.g. "12.34", not a JSON number.'
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_string")
        return super().to_internal_value(data)


def _money(minor: int | None, currency: str) -> str | None:
    return None if minor is None else Money(minor, currency).to_decimal_string()


# -- input ------------------------------------------------------------------------------------


class RefundRequestIn(serializers.Serializer):
    payment_id = serializers.IntegerField(min_value=1)
    amount = AmountField(max_length=32)
    reason = serializers.CharField(max_length=1000)
    ticket_id = serializers.IntegerField(min_value=1, required=False, allow_null=True)


class RefundPreviewIn(serializers.Serializer):
    payment_id = serializers.IntegerField(min_value=1)
    amount = AmountField(max_length=32)


class DecisionIn(serializers.Serializer):
    reason = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")


class RejectIn(serializers.Serializer):
    reason = serializers.CharField(max_length=1000)


class ReconcileIn(serializers.Serializer):
    date_from = serializers.DateField()
    date_to = serializers.DateField()


class ResolveIn(serializers.Serializer):
    note = serializers.CharField(max_length=2000)


# -- output -----------------------------------------------------------------------------------


class PaymentOut(serializers.ModelSerializer):
    captured = serializers.SerializerMethodField()
    refunded = serializers.SerializerMethodField()
    refundable = serializers.SerializerMethodField()

    class Meta:
        model = Payment
        fields = [
            "id",
            "reference",
            "mode",
            "status",
            "currency",
            "captured",
            "refunded",
            "refundable",
            "customer_email",
            "description",
            "captured_at",
        ]

    def get_captured(self, obj: Payment) -> str:
        return obj.captured.to_decimal_string()

    def get_refunded(self, obj: Payment) -> str:
        return obj.refunded.to_decimal_string()

    def get_refundable(self, obj: Payment) -> str:
        return refundable(selectors.refundable_facts(obj)).to_decimal_string()


class RefundOut(serializers.ModelSerializer):
    amount = serializers.SerializerMethodField()
    payment_reference = serializers.CharField(source="payment.reference")
    requested_by = serializers.CharField(source="requested_by.username")
    decided_by = serializers.CharField(source="decided_by.username", default=None, allow_null=True)
    rehearsal = serializers.SerializerMethodField()
    provider = serializers.SerializerMethodField()

    class Meta:
        model = Refund
        fields = [
            "id",
            "mode",
            "payment_id",
            "payment_reference",
            "amount",
            "currency",
            "status",
            "reason",
            "ticket_id",
            "requested_by",
            "requested_at",
            "rehearsal",
            "decided_by",
            "decided_at",
            "decision_reason",
            "provider",
            "completed_at",
        ]

    def to_representation(self, instance: Refund) -> dict[str, Any]:
        # The declared fields above describe the shape (schema, docs); the representation is
        # built directly, because building a ModelSerializer's fields for every refund cost
        # more than the rest of the response. A test compares both on refunds in every state.
        return refund_representation(instance)

    def get_amount(self, obj: Refund) -> str:
        return obj.money.to_decimal_string()

    def get_rehearsal(self, obj: Refund) -> dict[str, Any]:
        return {
            "predicted_outcome": obj.predicted_outcome,
            "note": obj.prediction_note,
            "refundable_before": _money(obj.refundable_before, obj.currency),
            "refundable_after": _money(obj.refundable_after, obj.currency),
            "refunded_after": _money(obj.refunded_after, obj.currency),
        }

    def get_provider(self, obj: Refund) -> dict[str, Any]:
        return {
            "refund_id": obj.provider_refund_id,
            "status": obj.provider_status,
            "failure_reason": obj.failure_reason,
            "attempts": obj.attempts,
        }


_DATETIME = serializers.DateTimeField()


def _datetime(value: Any) -> str | None:
    return _DATETIME.to_representation(value) if value else None


def refund_representation(refund: Refund) -> dict[str, Any]:
    """RefundOut's output, field for field (same order, same formats)."""
    currency = refund.currency
    decided_by = refund.decided_by
    return {
        "id": refund.pk,
        "mode": str(refund.mode),
        "payment_id": refund.payment_id,
        "payment_reference": refund.payment.reference,
        "amount": Money(refund.amount, currency).to_decimal_string(),
        "currency": str(currency),
        "status": str(refund.status),
        "reason": refund.reason,
        "ticket_id": refund.ticket_id,
        "requested_by": refund.requested_by.username,
        "requested_at": _datetime(refund.requested_at),
        "rehearsal": {
            "predicted_outcome": refund.predicted_outcome,
            "note": refund.prediction_note,
            "refundable_before": _money(refund.refundable_before, currency),
            "refundable_after": _money(refund.refundable_after, currency),
            "refunded_after": _money(refund.refunded_after, currency),
        },
        "decided_by": None if decided_by is None else decided_by.username,
        "decided_at": _datetime(refund.decided_at),
        "decision_reason": refund.decision_reason,
        "provider": {
            "refund_id": refund.provider_refund_id,
            "status": refund.provider_status,
            "failure_reason": refund.failure_reason,
            "attempts": refund.attempts,
        },
        "completed_at": _datetime(refund.completed_at),
    }


class _ViolationOut(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class RefundPreviewOut(serializers.Serializer):
    """The shape `preview_out` answers (for the API schema; amounts are decimal strings)."""

    allowed = serializers.BooleanField()
    payment_id = serializers.IntegerField()
    amount = serializers.CharField()
    currency = serializers.CharField()
    violations = _ViolationOut(many=True)
    predicted_outcome = serializers.CharField(allow_null=True)
    prediction_note = serializers.CharField()
    refundable_before = serializers.CharField(allow_null=True)
    refundable_after = serializers.CharField(allow_null=True)
    refunded_after = serializers.CharField(allow_null=True)


def preview_out(preview: RefundPreview) -> dict[str, Any]:
    def text(money: Money | None) -> str | None:
        return None if money is None else money.to_decimal_string()

    return {
        "allowed": preview.allowed,
        "payment_id": preview.payment.pk,
        "amount": preview.amount.to_decimal_string(),
        "currency": preview.amount.currency,
        "violations": [{"code": v.code, "message": v.message} for v in preview.violations],
        "predicted_outcome": preview.prediction.outcome if preview.prediction else None,
        "prediction_note": preview.prediction.note if preview.prediction else "",
        "refundable_before": text(preview.refundable_before),
        "refundable_after": text(preview.refundable_after),
        "refunded_after": text(preview.refunded_after),
    }


class ReconciliationItemOut(serializers.ModelSerializer):
    resolved_by = serializers.CharField(
        source="resolved_by.username", default=None, allow_null=True
    )

    class Meta:
        model = ReconciliationItem
        fields = [
            "id",
            "kind",
            "refund_id",
            "idempotency_key",
            "provider_refund_id",
            "ours",
            "theirs",
            "resolved_by",
            "resolved_at",
            "resolution_note",
        ]


class ReconciliationReportOut(serializers.ModelSerializer):
    open_items = serializers.SerializerMethodField()

    class Meta:
        model = ReconciliationReport
        fields = [
            "id",
            "mode",
            "period_start",
            "period_end",
            "created_at",
            "compared",
            "open_items",
        ]

    def get_open_items(self, obj: ReconciliationReport) -> int:
        return obj.items.filter(resolved_at__isnull=True).count()


class ReconciliationReportDetailOut(ReconciliationReportOut):
    items = ReconciliationItemOut(many=True)

    class Meta(ReconciliationReportOut.Meta):
        fields = [*ReconciliationReportOut.Meta.fields, "items"]
