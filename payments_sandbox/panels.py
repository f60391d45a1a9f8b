"""The home-page panel: refunds waiting for the viewer's approval."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext

from backoffice.dashboard import Panel
from payments_sandbox import access, selectors
from payments_sandbox.modes import LIVE, current_mode


def approvals_panel(user: Any) -> Panel | None:
    if not access.can_approve_refund(user):
        return None
    live = current_mode() == LIVE
    # The badge's CSS class: red in live mode, amber in the sandbox (as the payments pages).
    badge_class = "mode-live-badge" if live else "warn"
    queue = selectors.refund_approval_queue()
    waiting = queue.exclude(requested_by=user)
    return Panel(
        title=gettext("Refund approvals"),
        url=reverse("payments_sandbox:approvals"),
        figures=[(gettext("Waiting for you"), waiting.count())],
        marker=gettext("LIVE") if live else gettext("SANDBOX"),
        marker_class=badge_class,
        lines=[
            (f"#{r.pk} {r.money.format()}", r.reason[:60]) for r in waiting.select_related(None)[:5]
        ],
    )
