"""Celery tasks of the project core: thin wrappers around services."""

from __future__ import annotations

from celery import shared_task

from backoffice.idempotency_records import idempotency_purge_expired


@shared_task(name="backoffice.tasks.idempotency_purge")
def idempotency_purge() -> int:
    return idempotency_purge_expired()
