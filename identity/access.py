"""Who may see or do what in identity. Views and API call these; nothing else decides."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from identity.models import Operator

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


class RoleBackend(ModelBackend):
    """Django's ModelBackend (password login, is_active, superusers) whose permission set is
    read in one query instead of two (the operator's own permissions and those of their
    roles, i.e. groups). As with ModelBackend the set is kept on the operator object, which
    lives for one request, so a role change counts from the operator's next request; nothing
    is cached across requests, so there is nothing to invalidate."""

    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            permissions = Permission.objects.all()
            if not user_obj.is_superuser:
                own = Operator.user_permissions.through.objects.filter(operator_id=user_obj.pk)
                by_role = Group.permissions.through.objects.filter(group__user=user_obj)
                permissions = permissions.filter(
                    Q(pk__in=own.values("permission_id"))
                    | Q(pk__in=by_role.values("permission_id"))
                )
            user_obj._perm_cache = {
                f"{app_label}.{codename}"
                for app_label, codename in permissions.values_list(
                    "content_type__app_label", "codename"
                )
            }
        return user_obj._perm_cache
