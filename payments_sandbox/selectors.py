"""Reads. Every query is limited to this process's mode: rows of the other mode do not exist
for it (and services refuse to touch them; see modes.assert_mode)."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db import connections, router
from django.db.models import Count, Prefetch, QuerySet
from django.utils.translation import gettext

from backoffice.errors import NotFound
from payments_sandbox.domain import PENDING_REFUND_STATES, Money, RefundableFacts
from payments_sandbox.models import (
    Payment,
    ReconciliationItem,
    ReconciliationReport,
    Refund,
    RefundStatus,
)
from payments_sandbox.modes import current_mode

_PENDING_STATES = sorted(str(s) for s in PENDING_REFUND_STATES)


@functools.cache
def _pending_sql(alias: str) -> str:
    quote = connections[alias].ops.quote_name
    column = {f.name: quote(str(f.column)) for f in Refund._meta.concrete_fields}
    states = ", ".join(["%s"] * len(_PENDING_STATES))
    return (
        f"SELECT SUM({column['amount']}) FROM {quote(Refund._meta.db_table)} "  # noqa: S608
        f"WHERE {column['payment']} = %s AND {column['status']} IN ({states})"
    )


def refundable_facts(payment: Payment) -> RefundableFacts:
    """The facts check_refund_request needs. Call it with the payment row locked when the
    answer decides a write, so no concurrent request can change `pending` meanwhile."""
    # A statement of its own, after the lock: on PostgreSQL a subquery inside the locking
    # SELECT would read the snapshot taken before the lock wait and miss the refund a
    # concurrent request just committed. Hand-written: it runs on every refund request, and
    # the ORM's aggregate cost over a tenth of the request's CPU (docs/performance.md).
    alias = router.db_for_read(Refund)
    with connections[alias].cursor() as cursor:
        cursor.execute(_pending_sql(alias), [payment.pk, *_PENDING_STATES])
        pending = cursor.fetchone()[0] or 0
    return RefundableFacts(
        captured=payment.captured,
        refunded=payment.refunded,
        pending=Money(int(pending), payment.currency),
        payment_status=payment.status,
    )


def payment_list(*, status: str = "", currency: str = "", search: str = "") -> QuerySet[Payment]:
    qs = Payment.objects.filter(mode=current_mode())
    if status:
        qs = qs.filter(status=status)
    if currency:
        qs = qs.filter(currency=currency.upper())
    if search:
        qs = qs.filter(reference__icontains=search) | qs.filter(customer_email__icontains=search)
    return qs


def payment_get(*, payment_id: int) -> Payment:
    payment = Payment.objects.filter(mode=current_mode(), pk=payment_id).first()
    if payment is None:
        raise NotFound(gettext("No such payment."))
    return payment


def refund_list(
    *, status: str = "", payment_id: int | None = None, requested_by_id: int | None = None
) -> QuerySet[Refund]:
    qs = Refund.objects.filter(mode=current_mode()).select_related(
        "payment", "requested_by", "decided_by"
    )
    if status:
        qs = qs.filter(status=status)
    if payment_id is not None:
        qs = qs.filter(payment_id=payment_id)
    if requested_by_id is not None:
        qs = qs.filter(requested_by_id=requested_by_id)
    return qs


def refund_get(*, refund_id: int) -> Refund:
    refund = refund_list().filter(pk=refund_id).first()
    if refund is None:
        raise NotFound(gettext("No such refund."))
    return refund


def refund_approval_queue() -> QuerySet[Refund]:
    """Oldest first: the queue is worked in the order customers asked."""
    return refund_list(status=RefundStatus.PENDING_APPROVAL).order_by("requested_at", "id")


def reconciliation_report_list() -> QuerySet[ReconciliationReport]:
    return ReconciliationReport.objects.filter(mode=current_mode()).select_related("created_by")


def reconciliation_report_get(*, report_id: int) -> ReconciliationReport:
    report = reconciliation_report_list().filter(pk=report_id).first()
    if report is None:
        raise NotFound(gettext("No such reconciliation report."))
    return report


def reconciliation_items(*, report: ReconciliationReport) -> QuerySet[ReconciliationItem]:
    return report.items.select_related("refund", "resolved_by")


# The refund list's state filters, as Stripe's dashboard groups them: each tab is a set of
# statuses, "all" is every refund of this mode.
REFUND_FILTERS: dict[str, tuple[str, ...]] = {
    "all": (),
    "needs_approval": (RefundStatus.PENDING_APPROVAL,),
    "in_progress": (
        RefundStatus.REQUESTED,
        RefundStatus.REHEARSED,
        RefundStatus.APPROVED,
        RefundStatus.PROCESSING,
    ),
    "succeeded": (RefundStatus.SUCCEEDED,),
    "failed": (RefundStatus.FAILED,),
    "rejected": (RefundStatus.REJECTED, RefundStatus.CANCELLED),
}


def refund_list_filtered(*, state: str = "all", search: str = "") -> QuerySet[Refund]:
    """The refund list page: newest first, one of REFUND_FILTERS, and a search on the
    payment's reference or the customer's e-mail (prefix, any case)."""
    qs = refund_list()
    statuses = REFUND_FILTERS.get(state, ())
    if statuses:
        qs = qs.filter(status__in=statuses)
    if search:
        qs = qs.filter(payment__reference__icontains=search) | qs.filter(
            payment__customer_email__icontains=search
        )
    return qs.order_by("-requested_at", "-id")


def refund_counts_by_filter() -> dict[str, int]:
    counts = dict(
        refund_list()
        .order_by()
        .values_list("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )
    return {
        name: sum(counts.get(str(s), 0) for s in statuses) if statuses else sum(counts.values())
        for name, statuses in REFUND_FILTERS.items()
    }


def payments_for_customer(*, email: str, limit: int = 20) -> list[Payment]:
    """A customer's payments (newest first) with their refunds: the ticket page shows them
    beside the conversation. Matched on the e-mail, case-insensitively."""
    if not email:
        return []
    return list(
        Payment.objects.filter(mode=current_mode(), customer_email__iexact=email)
        .prefetch_related(
            Prefetch(
                "refunds",
                queryset=Refund.objects.select_related("requested_by", "decided_by").order_by(
                    "requested_at", "id"
                ),
            )
        )
        .order_by("-captured_at", "-id")[:limit]
    )


@dataclass(frozen=True)
class TimelineEntry:
    at: dt.datetime
    what: str
    who: Any = None
    refund_id: int | None = None
    tone: str = ""


def _refund_entries(r: Refund) -> list[TimelineEntry]:
    """One refund's steps on its payment's timeline: requested, rehearsed, decided,
    cancelled, sent to the provider, and the provider's answer."""
    entries: list[TimelineEntry] = []
    money = r.money.format()
    entries.append(
        TimelineEntry(
            r.requested_at,
            gettext("Refund of %(money)s requested") % {"money": money},
            r.requested_by,
            r.pk,
        )
    )
    if r.rehearsed_at and r.predicted_outcome:
        entries.append(
            TimelineEntry(
                r.rehearsed_at,
                gettext("Rehearsed: %(outcome)s") % {"outcome": r.get_predicted_outcome_display()},
                None,
                r.pk,
                "bad" if r.predicted_outcome == "decline" else "",
            )
        )
    if r.decided_at and r.decided_by_id:
        approved = r.status not in (RefundStatus.REJECTED,)
        entries.append(
            TimelineEntry(
                r.decided_at,
                gettext("Approved") if approved else gettext("Rejected"),
                r.decided_by,
                r.pk,
                "" if approved else "bad",
            )
        )
    if r.status == RefundStatus.CANCELLED:
        entries.append(TimelineEntry(r.updated_at, gettext("Cancelled"), None, r.pk))
    if r.processing_started_at:
        entries.append(
            TimelineEntry(r.processing_started_at, gettext("Sent to the provider"), None, r.pk)
        )
    if r.completed_at and r.status == RefundStatus.SUCCEEDED:
        entries.append(
            TimelineEntry(
                r.completed_at,
                gettext("Refunded %(money)s by the provider") % {"money": money},
                None,
                r.pk,
                "ok",
            )
        )
    elif r.status == RefundStatus.FAILED:
        entries.append(
            TimelineEntry(
                r.completed_at or r.updated_at,
                gettext("Declined by the provider"),
                None,
                r.pk,
                "bad",
            )
        )
    return entries


def payment_timeline(*, payment: Payment) -> list[TimelineEntry]:
    """Everything that happened to a payment, oldest first: the capture, each refund's
    request, rehearsal, decision, hand-over to the provider and outcome, and a reversal."""
    entries = [
        TimelineEntry(
            payment.captured_at,
            gettext("Captured %(money)s") % {"money": payment.captured.format()},
        )
    ]
    for refund in refund_list(payment_id=payment.pk).order_by("requested_at", "id"):
        entries += _refund_entries(refund)
    try:
        reversal = payment.reversal
    except ObjectDoesNotExist:
        reversal = None
    if reversal is not None:
        entries.append(
            TimelineEntry(
                reversal.created_at,
                gettext("Reversed %(money)s") % {"money": reversal.money.format()},
                reversal.created_by,
                None,
                "bad",
            )
        )
    return sorted(entries, key=lambda e: e.at)
