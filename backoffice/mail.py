"""The one chokepoint for outbound email. Tests patch or inspect this seam (locmem backend);
production sets EMAIL_BACKEND / EMAIL_HOST in the environment."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.utils import translation
from django.utils.translation import gettext

from identity.models import Operator

logger = logging.getLogger(__name__)


def send_mail_to_operator(*, operator: Operator, subject: str, body: str) -> bool:
    """Send one plain-text email to an operator. Returns False (and logs) when the operator
    has no address; transport errors propagate so the calling Celery task can retry."""
    if not operator.email:
        logger.info("mail: operator %s has no email address; not sending %r", operator.pk, subject)
        return False
    # In the recipient's language (their header choice, else the site's), not the language
    # of whichever request or worker happens to send it.
    with translation.override(operator.language or settings.LANGUAGE_CODE):
        full_subject = gettext("[Backoffice] %(subject)s") % {"subject": subject}
    send_mail(
        subject=full_subject[:200],
        message=body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[operator.email],
    )
    return True
