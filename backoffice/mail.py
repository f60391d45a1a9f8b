"""The one chokepoint for outbound email. Tests patch or inspect this seam (locmem backend);
production sets EMAIL_BACKEND / EMAIL_HOST in the environment."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail

from identity.models import Operator

logger = logging.getLogger(__name__)


def send_mail_to_operator(*, operator: Operator, subject: str, body: str) -> bool:
    """Send one plain-text email to an operator. Returns False (and logs) when the operator
    has no address; transport errors propagate so the calling Celery task can retry."""
    if not operator.email:
        logger.info("mail: operator %s has no email address; not sending %r", operator.pk, subject)
        return False
    send_mail(
        subject=f"[Backoffice] {subject}"[:200],
        message=body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[operator.email],
    )
    return True
