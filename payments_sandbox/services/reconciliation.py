"""Reconciliation: our ledger against the provider's, one report per run.

For a period [date_from, date_to] (whole days, UTC), every refund either side knows about is
matched on its idempotency key, and each disagreement becomes an item an operator resolves:

    missing   we recorded a refund the provider has no trace of
    extra     the provider made a refund our ledger does not know
    amount / currency / status   both sides know it but disagree
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict, NotFound, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from payments_sandbox import access
from payments_sandbox.adapters import PaymentAdapter, ProviderRefund, get_adapter
from payments_sandbox.models import (
    MismatchKind,
    ProviderRefundStatus,
    ReconciliationItem,
    ReconciliationReport,
    Refund,
    RefundStatus,
)
from payments_sandbox.modes import assert_mode, current_mode

# What the provider should say for each of our states (processing may be pending there).
_EXPECTED_PROVIDER_STATUS = {
    RefundStatus.SUCCEEDED: {ProviderRefundStatus.SUCCEEDED},
    RefundStatus.FAILED: {ProviderRefundStatus.FAILED},
    RefundStatus.PROCESSING: {ProviderRefundStatus.PENDING},
}
_EXECUTED = [RefundStatus.PROCESSING, RefundStatus.SUCCEEDED, RefundStatus.FAILED]


def _ours(refund: Refund) -> dict[str, Any]:
    return {
        "refund_id": refund.pk,
        "amount": refund.money.to_decimal_string(),
        "currency": refund.currency,
        "status": refund.status,
        "provider_refund_id": refund.provider_refund_id,
    }


def _theirs(record: ProviderRefund) -> dict[str, Any]:
    return {
        "provider_refund_id": record.provider_refund_id,
        "amount": record.amount.to_decimal_string(),
        "currency": record.amount.currency,
        "status": record.status,
    }


def _compare(refund: Refund | None, record: ProviderRefund | None) -> list[str]:
    if refund is not None and record is None:
        # A refund the provider refused outright (no provider id) has nothing to match.
        if refund.status == RefundStatus.FAILED and not refund.provider_refund_id:
            return []
        if refund.status == RefundStatus.PROCESSING and not refund.provider_refund_id:
            return []  # not yet sent: recovery's business, not a ledger difference
        return [MismatchKind.MISSING]
    if refund is None:
        return [MismatchKind.EXTRA]
    assert record is not None
    kinds: list[str] = []
    if record.amount.amount != refund.amount:
        kinds.append(MismatchKind.AMOUNT)
    if record.amount.currency != refund.currency:
        kinds.append(MismatchKind.CURRENCY)
    if record.status not in _EXPECTED_PROVIDER_STATUS.get(RefundStatus(refund.status), set()):
        kinds.append(MismatchKind.STATUS)
    return kinds


def _check_period(date_from: dt.date, date_to: dt.date) -> None:
    """A period that ends after it starts and is short enough for one provider listing."""
    if date_to < date_from:
        raise ValidationFailed(
            gettext("The period ends before it starts."),
            fields={"date_to": [gettext("Must not precede date_from.")]},
        )
    # A bounded period: one provider listing and one query cover it, and the day after
    # date_to (the exclusive end) must exist (9999-12-31 + 1 day overflowed).
    max_days = int(settings.RECONCILIATION_MAX_DAYS)
    if (date_to - date_from).days + 1 > max_days or date_to >= dt.date.max:
        raise ValidationFailed(
            gettext("The period is longer than %(days)d days; reconcile it in parts.")
            % {"days": max_days},
            fields={
                "date_to": [gettext("At most %(days)d days from date_from.") % {"days": max_days}]
            },
        )


def _both_sides(
    adapter: PaymentAdapter, mode: str, since: dt.datetime, until: dt.datetime
) -> tuple[dict[str, Refund], dict[str, ProviderRefund]]:
    """The refunds executed in the period, ours and the provider's, by idempotency key; a
    refund one side dates just outside the period is looked up by its key on the other."""
    theirs = {r.idempotency_key: r for r in adapter.list_refunds(since=since, until=until)}
    ours = {
        r.provider_idempotency_key: r
        for r in Refund.objects.filter(
            mode=mode,
            status__in=_EXECUTED,
            processing_started_at__gte=since,
            processing_started_at__lt=until,
        )
    }
    # Near the period's edges one side may date a refund a moment before midnight and the
    # other just after: look the counterpart up by key before calling anything missing.
    for key in set(theirs) - set(ours):
        refund = Refund.objects.filter(mode=mode, provider_idempotency_key=key).first()
        if refund is not None:
            ours[key] = refund
    for key in set(ours) - set(theirs):
        refund = ours[key]
        found = adapter.find_refund(
            provider_payment_id=refund.payment.provider_payment_id, idempotency_key=key
        )
        if found is not None:
            theirs[key] = found
    return ours, theirs


def reconcile_run(
    *,
    actor: Operator | None,
    date_from: dt.date,
    date_to: dt.date,
    adapter: PaymentAdapter | None = None,
) -> ReconciliationReport:
    if actor is not None:
        access.require(access.can_resolve_reconciliation(actor), "You may not run reconciliation.")
    _check_period(date_from, date_to)
    adapter = adapter or get_adapter()
    since = dt.datetime.combine(date_from, dt.time.min, tzinfo=dt.UTC)
    until = dt.datetime.combine(date_to + dt.timedelta(days=1), dt.time.min, tzinfo=dt.UTC)
    mode = current_mode()
    ours, theirs = _both_sides(adapter, mode, since, until)

    with transaction.atomic():
        report = ReconciliationReport.objects.create(
            mode=mode,
            period_start=date_from,
            period_end=date_to,
            created_at=timezone.now(),
            created_by=actor,
            compared=len(set(ours) | set(theirs)),
        )
        items = []
        for key in sorted(set(ours) | set(theirs)):
            refund, record = ours.get(key), theirs.get(key)
            for kind in _compare(refund, record):
                items.append(
                    ReconciliationItem(
                        report=report,
                        kind=kind,
                        refund=refund,
                        idempotency_key=key,
                        provider_refund_id=record.provider_refund_id if record else "",
                        ours=_ours(refund) if refund else {},
                        theirs=_theirs(record) if record else {},
                    )
                )
        ReconciliationItem.objects.bulk_create(items)
        audit_record(
            actor=actor,
            action="reconciliation.run",
            target=report,
            after={
                "period": [date_from.isoformat(), date_to.isoformat()],
                "compared": report.compared,
                "mismatches": len(items),
            },
        )
    return report


def reconciliation_item_resolve(*, actor: Operator, item_id: int, note: str) -> ReconciliationItem:
    access.require(
        access.can_resolve_reconciliation(actor), "You may not resolve reconciliation items."
    )
    note = (note or "").strip()
    if not note:
        raise ValidationFailed(
            gettext("Say how the mismatch was resolved."),
            fields={"note": [gettext("This field is required.")]},
        )
    with transaction.atomic():
        item = (
            ReconciliationItem.objects.select_for_update()
            .select_related("report")
            .filter(pk=item_id)
            .first()
        )
        if item is None:
            raise NotFound(gettext("No such reconciliation item."))
        assert_mode(item.report)
        if item.resolved_at is not None:
            raise Conflict(gettext("This item is already resolved."), code="already_resolved")
        item.resolved_by = actor
        item.resolved_at = timezone.now()
        item.resolution_note = note[:2000]
        item.save(update_fields=["resolved_by", "resolved_at", "resolution_note"])
        audit_record(
            actor=actor,
            action="reconciliation.resolve",
            target=item,
            after={"kind": item.kind, "note": item.resolution_note},
        )
    return item
