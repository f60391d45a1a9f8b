"""How payments' audit events read on the audit trail: refunds and payments by name, linked
for viewers who may open them, and amounts in major units of their currency."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext

from identity.audit_display import Link, TargetKind, operator_link, register
from payments_sandbox import access
from payments_sandbox.domain import Money
from payments_sandbox.models import (
    Mode,
    PaymentStatus,
    PredictedOutcome,
    ProviderRefundStatus,
    RefundStatus,
)

MONEY_FIELDS = frozenset(
    {
        "amount",
        "captured_amount",
        "refunded_amount",
        "refundable_before",
        "refundable_after",
        "refunded_after",
    }
)


def _money(minor: int, currency: str) -> str:
    try:
        return Money(minor, currency).format()
    except (ValueError, KeyError):
        return gettext("%(minor)s %(currency)s (minor units)") % {
            "minor": minor,
            "currency": currency,
        }


def _refund_url(pk: str, user: Any) -> str:
    if not access.can_view_refunds(user) or not pk.isdigit():
        return ""
    return reverse("payments_sandbox:refund_detail", args=[int(pk)])


def _payment_url(pk: str, user: Any) -> str:
    if not access.can_view_payments(user) or not pk.isdigit():
        return ""
    return reverse("payments_sandbox:payment_detail", args=[int(pk)])


def _payment_link(value: Any, user: Any) -> Link:
    return gettext("Payment #%(pk)s") % {"pk": value}, _payment_url(str(value), user)


def _report_url(pk: str, user: Any) -> str:
    if not user.has_perm(access.VIEW_RECONCILIATION) or not pk.isdigit():
        return ""
    return f"{reverse('payments_sandbox:reconciliation')}?report={int(pk)}"


def register_audit_kinds() -> None:
    register(
        "payments_sandbox.refund",
        TargetKind(
            label=lambda pk: gettext("Refund #%(pk)s") % {"pk": pk},
            url=_refund_url,
            money_fields=MONEY_FIELDS,
            money=_money,
            field_links={"payment": _payment_link, "decided_by": operator_link},
            field_choices={
                "status": dict(RefundStatus.choices),
                "predicted_outcome": dict(PredictedOutcome.choices),
                "provider_status": dict(ProviderRefundStatus.choices),
            },
        ),
    )
    register(
        "payments_sandbox.payment",
        TargetKind(
            label=lambda pk: gettext("Payment #%(pk)s") % {"pk": pk},
            url=_payment_url,
            money_fields=MONEY_FIELDS,
            money=_money,
            field_choices={"status": dict(PaymentStatus.choices), "mode": dict(Mode.choices)},
        ),
    )
    register(
        "payments_sandbox.reconciliationreport",
        TargetKind(
            label=lambda pk: gettext("Reconciliation report #%(pk)s") % {"pk": pk},
            url=_report_url,
        ),
    )
