"""Who may see or do what in identity. Views and API call these; nothing else decides."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied

MANAGE_OPERATORS = "identity.manage_operators"
VIEW_AUDIT_TRAIL = "identity.view_audit_trail"


def _human(user: Any) -> bool:
    return bool(user.is_authenticated and not getattr(user, "is_service_principal", False))


def can_manage_operators(user: Any) -> bool:
    return _human(user) and user.has_perm(MANAGE_OPERATORS)


def can_view_audit(user: Any) -> bool:
    return _human(user) and user.has_perm(VIEW_AUDIT_TRAIL)


def require_manage_operators(user: Any) -> None:
    if not can_manage_operators(user):
        raise PermissionDenied("Managing operators is reserved to admins.")


def require_view_audit(user: Any) -> None:
    if not can_view_audit(user):
        raise PermissionDenied("The audit trail is reserved to auditors.")
