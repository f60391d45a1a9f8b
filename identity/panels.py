"""Home-page panels contributed by identity (registered in IdentityConfig.ready)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.urls import reverse
from django.utils import timezone

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
            (f"Only {left} backup codes left: generate new ones", reverse("identity:security"))
        )
    return Panel(
        title="My security",
        url=reverse("identity:security"),
        figures=[("Backup codes left", left), ("Active sessions", user.sessions.count())],
        lines=lines,
    )


def operators_panel(user: Any) -> Panel | None:
    if not access.can_manage_operators(user):
        return None
    now = timezone.now()
    return Panel(
        title="Operators",
        url=reverse("identity:operator_list"),
        figures=[
            ("Active", Operator.objects.filter(is_active=True, kind=OperatorKind.HUMAN).count()),
            (
                "Locked out now",
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
        title="Audit trail",
        url=reverse("identity:audit_list"),
        figures=[
            ("Events, 24 h", recent.count()),
            (
                "Login failures, 24 h",
                recent.filter(action__in=["login.failure", "login.lockout"]).count(),
            ),
        ],
    )
