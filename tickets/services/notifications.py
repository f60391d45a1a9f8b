"""An operator's notifications: marking them read (they are created by `tickets.notifications`)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from identity.audit import audit_record
from identity.models import Operator
from tickets.models import Notification


def notifications_mark_read(*, actor: Operator, notification_ids: list[int] | None = None) -> int:
    """Mark the actor's notifications read: the ones given, or all unread ones."""
    with transaction.atomic():
        query = Notification.objects.filter(recipient=actor, read_at__isnull=True)
        if notification_ids is not None:
            query = query.filter(pk__in=notification_ids)
        count = query.update(read_at=timezone.now())
        if count:
            audit_record(
                actor=actor,
                action="notification.read",
                target_type="tickets.notification",
                target_id="all"
                if notification_ids is None
                else ",".join(map(str, notification_ids))[:80],
                after={"count": count},
            )
    return count


__all__ = ["notifications_mark_read"]
