"""The inbox's panel on the home page."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.http import urlencode

from backoffice.dashboard import Panel
from tickets import access, selectors


def inbox_panel(user: Any) -> Panel | None:
    if not getattr(user, "is_authenticated", False) or not access.can_use_inbox(user):
        return None
    counts = selectors.inbox_counts(operator=user)
    unread = selectors.notification_unread_count(operator=user)
    inbox = reverse("tickets:inbox")
    return Panel(
        title="Inbox",
        url=inbox,
        figures=[
            ("Mine", counts["mine"]),
            ("Unassigned", counts["unassigned"]),
            ("Breaching SLA", counts["breaching"]),
        ],
        lines=[
            (
                f"{unread} unread notification{'s' if unread != 1 else ''}",
                reverse("tickets:notifications"),
            ),
            ("Tickets near or past SLA", f"{inbox}?{urlencode({'view': 'breaching'})}"),
        ],
    )
