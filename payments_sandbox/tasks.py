"""Celery tasks: thin wrappers around the payment services."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.utils import timezone

from payments_sandbox.adapters import ProviderError
from payments_sandbox.services import execution, reconciliation


@shared_task(
    name="payments_sandbox.refund_execute",
    autoretry_for=(ProviderError,),
    retry_backoff=2,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
    acks_late=True,
)
def refund_execute(refund_id: int) -> str:
    # Every retry carries the refund's own idempotency key to the provider (see
    # services.execution), so retrying after a timeout never refunds twice.
    return execution.refund_execute(refund_id=refund_id).status


@shared_task(name="payments_sandbox.refund_recover_stuck")
def refund_recover_stuck() -> dict[str, int]:
    return execution.refund_recover_stuck()


@shared_task(name="payments_sandbox.reconcile_yesterday")
def reconcile_yesterday() -> int:
    yesterday = timezone.now().date() - dt.timedelta(days=1)
    report = reconciliation.reconcile_run(actor=None, date_from=yesterday, date_to=yesterday)
    return report.pk
