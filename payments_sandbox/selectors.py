"""Reads. Every query is limited to this process's mode: rows of the other mode do not exist
for it (and services refuse to touch them; see modes.assert_mode)."""

from __future__ import annotations

from django.db import connections, router
from django.db.models import QuerySet
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
_PENDING_SQL = (
    f"SELECT SUM(amount) FROM {Refund._meta.db_table} "  # noqa: S608 - names from the model
    f"WHERE payment_id = %s AND status IN ({', '.join(['%s'] * len(_PENDING_STATES))})"
)


def refundable_facts(payment: Payment) -> RefundableFacts:
    """The facts check_refund_request needs. Call it with the payment row locked when the
    answer decides a write, so no concurrent request can change `pending` meanwhile."""
    # Plain SQL: this sum runs under the row lock of every refund request, where building it
    # through the ORM cost more than running it. A statement of its own, after the lock:
    # on PostgreSQL a subquery inside the locking SELECT would read the snapshot taken before
    # the lock wait and miss the refund a concurrent request just committed.
    connection = connections[router.db_for_read(Refund)]
    with connection.cursor() as cursor:
        cursor.execute(_PENDING_SQL, [payment.pk, *_PENDING_STATES])
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
