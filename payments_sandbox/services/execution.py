"""Moving money: executing approved refunds at the provider, and recovering stuck ones.

The provider call cannot share a transaction with our database, so execution is three steps:

    1. refund_mark_processing  (our transaction: approved -> processing, audited)
    2. adapter.create_refund   (the provider, with the refund's own idempotency key)
    3. refund_settle           (our transaction: processing -> succeeded/failed, audited)

A worker may die between any two steps. Whatever it did, the refund is left in processing
with its key, and every later attempt (a Celery retry, or refund_recover_stuck) first asks
the provider for the refund made with that key and only creates one if there is none, and
the provider itself deduplicates on the key. So a crash can delay a refund, never pay it
twice.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict
from identity.audit import audit_record
from payments_sandbox.adapters import PaymentAdapter, ProviderError, ProviderRefund, get_adapter
from payments_sandbox.domain import (
    Money,
    RefundState,
    payment_status_after_refunds,
    payment_transition,
)
from payments_sandbox.models import ProviderRefundStatus, Refund, RefundStatus
from payments_sandbox.modes import current_mode
from payments_sandbox.services._common import lock_payment, lock_refund, move, refund_snapshot

log = logging.getLogger(__name__)

# A refund in processing longer than this is presumed abandoned by its worker.
STUCK_AFTER_SECONDS = 300


def refund_mark_processing(*, refund_id: int) -> Refund:
    """approved -> processing. A refund already processing (a retry) is returned as is."""
    with transaction.atomic():
        refund = lock_refund(refund_id)
        if refund.status != RefundStatus.APPROVED:
            return refund
        before = refund_snapshot(refund)
        move(refund, RefundState.PROCESSING)
        now = timezone.now()
        refund.processing_started_at = now
        refund.attempts += 1
        refund.updated_at = now
        refund.save()
        audit_record(
            actor=None,
            action="refund.process",
            target=refund,
            before=before,
            after=refund_snapshot(refund),
        )
    return refund


def refund_settle(*, refund_id: int, result: ProviderRefund) -> Refund:
    """Record the provider's answer. Settling twice with the same answer is a no-op (a
    retry after a lost acknowledgement); a different answer for a settled refund is a
    conflict for reconciliation to surface."""
    with transaction.atomic():
        # Lock order payment -> refund, as in refund_request, so the two never deadlock.
        payment_id = Refund.objects.values_list("payment_id", flat=True).get(pk=refund_id)
        payment = lock_payment(payment_id)
        refund = lock_refund(refund_id)
        if refund.status in (RefundStatus.SUCCEEDED, RefundStatus.FAILED):
            if refund.provider_status == result.status:
                return refund
            raise Conflict(
                gettext("Refund #%(pk)s is already %(status)s; the provider now says %(status2)s.")
                % {"pk": refund.pk, "status": refund.status, "status2": result.status},
                code="settlement_conflict",
            )
        if refund.status != RefundStatus.PROCESSING:
            raise Conflict(
                gettext("Refund #%(pk)s is not processing.") % {"pk": refund.pk},
                code="invalid_transition",
            )
        before = refund_snapshot(refund)
        now = timezone.now()
        refund.provider_refund_id = result.provider_refund_id
        refund.provider_status = result.status
        refund.updated_at = now
        action = "refund.provider_pending"
        if result.status == ProviderRefundStatus.SUCCEEDED:
            move(refund, RefundState.SUCCEEDED)
            refund.completed_at = now
            refunded = payment.refunded + Money(refund.amount, refund.currency)
            target = payment_status_after_refunds(payment.captured, refunded)
            payment.status = payment_transition(payment.status, target)
            payment.refunded_amount = refunded.amount
            payment.updated_at = now
            payment.save(update_fields=["status", "refunded_amount", "updated_at"])
            action = "refund.succeed"
        elif result.status == ProviderRefundStatus.FAILED:
            move(refund, RefundState.FAILED)
            # The provider's own words, or none: the pages word a decline without them in the
            # reader's language.
            refund.failure_reason = result.failure_reason[:300]
            refund.completed_at = now
            action = "refund.fail"
        refund.save()
        audit_record(
            actor=None,
            action=action,
            target=refund,
            before=before,
            after=refund_snapshot(refund),
        )
    return refund


def _provider_answer(refund: Refund, adapter: PaymentAdapter) -> ProviderRefund:
    found = adapter.find_refund(
        provider_payment_id=refund.payment.provider_payment_id,
        idempotency_key=refund.provider_idempotency_key,
    )
    if found is not None:
        return found
    return adapter.create_refund(
        provider_payment_id=refund.payment.provider_payment_id,
        amount=refund.money,
        idempotency_key=refund.provider_idempotency_key,
    )


def refund_execute(*, refund_id: int, adapter: PaymentAdapter | None = None) -> Refund:
    """Run an approved refund at the provider. Raises ProviderError when the provider should
    be asked again later (the Celery task retries with the same key)."""
    adapter = adapter or get_adapter()
    refund = refund_mark_processing(refund_id=refund_id)
    if refund.status != RefundStatus.PROCESSING:
        return refund
    if refund.attempts > 1 or refund.provider_refund_id:
        result = _provider_answer(refund, adapter)
    else:
        result = adapter.create_refund(
            provider_payment_id=refund.payment.provider_payment_id,
            amount=refund.money,
            idempotency_key=refund.provider_idempotency_key,
        )
    return refund_settle(refund_id=refund.pk, result=result)


def refund_recover_stuck(
    *, older_than_seconds: int = STUCK_AFTER_SECONDS, adapter: PaymentAdapter | None = None
) -> dict[str, int]:
    """Settle refunds left in processing (a worker died, or the provider settles later) from
    the provider's own record, and re-dispatch approved refunds whose task was lost."""
    adapter = adapter or get_adapter()
    cutoff = timezone.now() - dt.timedelta(seconds=older_than_seconds)
    counts = {"settled": 0, "still_pending": 0, "redispatched": 0, "errors": 0}
    stuck = Refund.objects.filter(
        mode=current_mode(), status=RefundStatus.PROCESSING, processing_started_at__lt=cutoff
    ).select_related("payment")
    for refund in stuck:
        try:
            result = _provider_answer(refund, adapter)
            settled = refund_settle(refund_id=refund.pk, result=result)
        except (ProviderError, Conflict) as exc:
            log.warning("recovery of refund %s failed: %s", refund.pk, exc)
            counts["errors"] += 1
            continue
        key = "still_pending" if settled.status == RefundStatus.PROCESSING else "settled"
        counts[key] += 1
    lost = Refund.objects.filter(
        mode=current_mode(), status=RefundStatus.APPROVED, decided_at__lt=cutoff
    ).values_list("pk", flat=True)
    from payments_sandbox.tasks import refund_execute as refund_execute_task

    for refund_pk in lost:
        refund_execute_task.delay(refund_pk)
        counts["redispatched"] += 1
    return counts
