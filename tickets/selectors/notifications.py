"""Reads of an operator's notifications."""

from __future__ import annotations

from django.db.models import QuerySet

from identity.models import Operator
from tickets.models import Notification


def notification_list(*, operator: Operator, unread_only: bool = False) -> QuerySet[Notification]:
    rows = Notification.objects.filter(recipient=operator)
    if unread_only:
        rows = rows.filter(read_at__isnull=True)
    return rows.order_by("-created_at", "-id")


def notification_unread_count(*, operator: Operator) -> int:
    return Notification.objects.filter(recipient=operator, read_at__isnull=True).count()
