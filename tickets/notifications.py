"""In-app notifications and system notes, for the inbox and for other apps.

These are building blocks, not services: they write no audit event and open no transaction
of their own. Call them from inside a service's `transaction.atomic()` block, whose single
audit event covers the change that caused the notification. The email copy of a
notification is handed to Celery with `transaction.on_commit`, so a rolled-back service
sends nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone

from identity.models import Operator
from tickets.models import Message, MessageKind, Notification, Ticket
from tickets.phrases import note_english, notification_english


def notify(
    *,
    recipient: Operator,
    kind: str,
    title: str = "",
    title_key: str = "",
    title_params: dict[str, Any] | None = None,
    body: str = "",
    url: str = "",
    email: bool = True,
) -> Notification:
    """Add a notification to `recipient`'s in-app list and, after the caller's transaction
    commits, email it (tickets.tasks.notification_email_send) when `email` is true.

    `kind` is a short machine name: the inbox uses NotificationKind values; other apps use
    their own dotted names (e.g. "refund.approval_requested"). The title is a key of
    tickets.phrases.NOTIFICATIONS (`title_key`, with `title_params`), worded in the reader's
    language when shown or e-mailed; a plain `title` is shown as it is, in every language.
    Not audited: run it inside the audited transaction of the service that caused it.
    """
    return notify_operator(
        recipient_id=recipient.pk,
        email=recipient.email if email else "",
        kind=kind,
        title=title,
        title_key=title_key,
        title_params=title_params,
        body=body,
        url=url,
    )


def notify_operator(
    *,
    recipient_id: int,
    email: str,
    kind: str,
    title: str = "",
    title_key: str = "",
    title_params: dict[str, Any] | None = None,
    body: str = "",
    url: str = "",
) -> Notification:
    """notify() for a caller that has the recipient's id and email address but no Operator
    instance (routing reads its candidates as plain values). No email when `email` is
    empty."""
    title_params = title_params or {}
    if title_key:
        title = notification_english(title_key, title_params)
    notification = Notification.objects.create(
        recipient_id=recipient_id,
        kind=kind[:50],
        title=title[:200],
        title_key=title_key,
        title_params=title_params,
        body=body,
        url=url[:300],
        created_at=timezone.now(),
    )
    if email:
        from tickets.tasks import notification_email_send

        notification_id = notification.pk
        transaction.on_commit(lambda: notification_email_send.delay(notification_id))
    return notification


def post_system_note(
    *, ticket_id: int, body: str = "", body_key: str = "", body_params: dict[str, Any] | None = None
) -> Message:
    """Add a system message (shown to operators, never to the customer) to a ticket's
    conversation, e.g. "Refund of EUR 25.00 approved by Bob". The text is a key of
    tickets.phrases.NOTES (`body_key`, with `body_params`), worded in the reader's language
    when shown; a plain `body` is shown as it is, in every language.

    It does not change the ticket's version: a system note records something that happened
    elsewhere, so it must not make an operator's open reply form stale. Not audited: run it
    inside the audited transaction of the service that caused it.
    """
    now = timezone.now()
    if not Ticket.objects.filter(pk=ticket_id).exists():
        raise Ticket.DoesNotExist(f"Ticket {ticket_id} does not exist.")
    if body_key:
        message = system_message(
            ticket_id=ticket_id, body_key=body_key, body_params=body_params or {}, now=now
        )
    else:
        message = Message(
            ticket_id=ticket_id,
            kind=MessageKind.SYSTEM,
            author_label="System",
            body=body,
            created_at=now,
        )
    message.save(force_insert=True)
    Ticket.objects.filter(pk=ticket_id).update(updated_at=now)
    return message


def system_message(
    *,
    ticket_id: int,
    body_key: str,
    body_params: dict[str, Any],
    now: dt.datetime,
    author_label: str = "System",
) -> Message:
    """An unsaved system message worded by a key of tickets.phrases.NOTES (the English kept in
    `body` for search and export, the reader's language when shown): post_system_note's, a
    merge's and a go-live finding's."""
    return Message(
        ticket_id=ticket_id,
        kind=MessageKind.SYSTEM,
        author_label=author_label,
        body=note_english(body_key, body_params),
        body_key=body_key,
        body_params=body_params,
        created_at=now,
    )
