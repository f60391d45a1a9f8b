"""Celery tasks: thin wrappers around services and the mail chokepoint."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone, translation

from backoffice.mail import send_mail_to_operator
from tickets.models import Notification


@shared_task(bind=True, max_retries=5, default_retry_delay=60, acks_late=True)
def notification_email_send(self: Any, notification_id: int) -> bool:
    """Email one notification once; a retried or duplicated task sends nothing twice."""
    notification = (
        Notification.objects.select_related("recipient").filter(pk=notification_id).first()
    )
    if notification is None or notification.emailed_at is not None:
        return False
    # The title in the recipient's language (their header choice, else the site's), not in
    # the language of the worker that sends it.
    language = notification.recipient.language or settings.LANGUAGE_CODE
    with translation.override(language):
        subject = notification.title_text
    body = notification.body
    if notification.url:
        base = getattr(settings, "BACKOFFICE_BASE_URL", "").rstrip("/")
        body = f"{body}\n\n{base}{notification.url}".strip()
    try:
        sent = send_mail_to_operator(operator=notification.recipient, subject=subject, body=body)
    except OSError as exc:
        raise self.retry(exc=exc) from exc
    if sent:
        Notification.objects.filter(pk=notification_id, emailed_at__isnull=True).update(
            emailed_at=timezone.now()
        )
    return sent


@shared_task(acks_late=True)
def sla_evaluate_task() -> int:
    from tickets.services import sla_evaluate

    return len(sla_evaluate())


@shared_task(acks_late=True)
def routing_sweep_task() -> int:
    from tickets.services import tickets_route_unrouted

    return len(tickets_route_unrouted())


@shared_task(acks_late=True)
def operator_loads_recount_task() -> int:
    """Repair the routing load counters (normally a no-op: triggers keep them exact)."""
    from tickets.services.duty import operator_loads_recount

    return len(operator_loads_recount())
