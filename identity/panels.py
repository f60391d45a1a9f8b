"""Home-page panels contributed by identity (registered in IdentityConfig.ready)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from backoffice.dashboard import Panel
from identity import access, otp
from identity.models import AuditEvent, LoginThrottle, Operator, OperatorKind


def security_panel(user: Any) -> Panel | None:
    if not isinstance(user, Operator) or user.is_service_principal:
        return None
    left = otp.backup_codes_left(user)
    lines = []
    if left <= 3:
        lines.append(
            (
                ngettext(
                    "Only %(left)d backup code left: generate new ones",
                    "Only %(left)d backup codes left: generate new ones",
                    left,
                )
                % {"left": left},
                reverse("identity:security"),
            )
        )
    return Panel(
        title=gettext("My security"),
        url=reverse("identity:security"),
        figures=[
            (gettext("Backup codes left"), left),
            (gettext("Active sessions"), user.sessions.count()),
        ],
        lines=lines,
    )


def operators_panel(user: Any) -> Panel | None:
    if not access.can_manage_operators(user):
        return None
    now = timezone.now()
    return Panel(
        title=gettext("Operators"),
        url=reverse("identity:operator_list"),
        figures=[
            (
                gettext("Active"),
                Operator.objects.filter(is_active=True, kind=OperatorKind.HUMAN).count(),
            ),
            (
                gettext("Locked out now"),
                LoginThrottle.objects.filter(scope="account", locked_until__gt=now).count(),
            ),
        ],
    )


def audit_panel(user: Any) -> Panel | None:
    if not access.can_view_audit(user):
        return None
    since = timezone.now() - dt.timedelta(hours=24)
    recent = AuditEvent.objects.filter(occurred_at__gte=since)
    return Panel(
        title=gettext("Audit trail"),
        url=reverse("identity:audit_list"),
        figures=[
            (gettext("Events, 24 h"), recent.count()),
            (
                gettext("Login failures, 24 h"),
                recent.filter(action__in=["login.failure", "login.lockout"]).count(),
            ),
        ],
    )
