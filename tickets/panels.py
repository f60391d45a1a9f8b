"""The inbox's panel on the home page."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext, ngettext

from backoffice.dashboard import Panel
from tickets import access, selectors


def inbox_panel(user: Any) -> Panel | None:
    if not getattr(user, "is_authenticated", False) or not access.can_use_inbox(user):
        return None
    counts = selectors.inbox_counts(operator=user)
    unread = selectors.notification_unread_count(operator=user)
    inbox = reverse("tickets:inbox")
    return Panel(
        title=gettext("Inbox"),
        url=inbox,
        figures=[
            (gettext("Mine"), counts["mine"]),
            (gettext("Unassigned"), counts["unassigned"]),
            (gettext("Breaching SLA"), counts["breaching"]),
        ],
        lines=[
            (
                ngettext("%(count)d unread notification", "%(count)d unread notifications", unread)
                % {"count": unread},
                reverse("tickets:notifications"),
            ),
            (gettext("Tickets near or past SLA"), f"{inbox}?{urlencode({'view': 'breaching'})}"),
        ],
    )
