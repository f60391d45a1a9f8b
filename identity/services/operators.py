"""Operator administration: create, roles, deactivate, force logout (password and two-factor
resets are in identity.services.credential_resets)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict, ValidationFailed
from identity.audit import audit_record
from identity.models import ApiToken, Operator, OperatorKind, Role
from identity.services.passwords import temporary_password
from identity.services.sessions import revoke_all_sessions

USERNAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{1,63}$")


def _clean_roles(roles: Iterable[str]) -> list[str]:
    cleaned = sorted(set(roles))
    unknown = [r for r in cleaned if r not in Role.values]
    if unknown:
        raise ValidationFailed(
            gettext("Unknown role."),
            fields={"roles": [gettext("Unknown role %(r)r.") % {"r": r} for r in unknown]},
        )
    return cleaned


def _role_list(operator: Operator) -> list[str]:
    return sorted(operator.groups.values_list("name", flat=True))


def _active_admins_other_than(operator: Operator) -> int:
    return (
        Operator.objects.filter(groups__name=Role.ADMIN, is_active=True)
        .exclude(pk=operator.pk)
        .count()
    )


def operator_create(
    *,
    actor: Operator | None,
    username: str,
    display_name: str = "",
    email: str = "",
    roles: Iterable[str] = (),
    kind: OperatorKind | str = OperatorKind.HUMAN,
    password: str | None = None,
) -> tuple[Operator, str | None]:
    """Create a human operator (with a temporary password, returned once, and 2FA enrolment
    at first login) or a service principal (no password, API tokens only).

    Returns (operator, temporary password or None)."""
    username = username.strip().lower()
    if not USERNAME_RE.match(username):
        raise ValidationFailed(
            gettext("Invalid username."),
            fields={
                "username": [
                    gettext("2-64 characters: lowercase letters, digits, '.', '_' or '-'.")
                ]
            },
        )
    kind = OperatorKind(kind)
    role_list = _clean_roles(roles)
    with transaction.atomic():
        if Operator.objects.filter(username=username).exists():
            raise Conflict(
                gettext("That username is taken."),
                fields={"username": [gettext("Already in use.")]},
            )
        operator = Operator(username=username, display_name=display_name, email=email, kind=kind)
        temporary: str | None = None
        if kind == OperatorKind.SERVICE:
            operator.set_unusable_password()
        else:
            temporary = password or temporary_password()
            operator.set_password(temporary)
            # A password someone else chose (the admin sees it) is only a way in to set one's
            # own: nothing else is reachable until the operator replaces it.
            operator.must_change_password = password is None
        operator.save()
        if role_list:
            operator.groups.set(Group.objects.filter(name__in=role_list))
        audit_record(
            actor=actor,
            action="operator.create",
            target=operator,
            after={"username": username, "kind": str(kind), "roles": role_list},
        )
    return operator, (None if password else temporary)


def operator_roles_set(*, actor: Operator, operator: Operator, roles: Iterable[str]) -> list[str]:
    """Replace the operator's roles. The last active admin cannot lose the admin role, so
    the deployment always keeps someone able to manage operators."""
    role_list = _clean_roles(roles)
    with transaction.atomic():
        operator = Operator.objects.select_for_update().get(pk=operator.pk)
        before = _role_list(operator)
        if (
            Role.ADMIN in before
            and Role.ADMIN not in role_list
            and operator.is_active
            and _active_admins_other_than(operator) == 0
        ):
            raise Conflict(
                gettext("This is the last active admin; grant the role to someone else first.")
            )
        operator.groups.set(Group.objects.filter(name__in=role_list))
        operator.__dict__.pop("_role_names", None)
        audit_record(
            actor=actor,
            action="operator.roles_set",
            target=operator,
            before={"roles": before},
            after={"roles": role_list},
        )
    return role_list


def operator_deactivate(*, actor: Operator, operator: Operator) -> None:
    """Block the account: no login, sessions ended, API tokens revoked. Rows stay for the
    audit trail's sake."""
    if operator.pk == actor.pk:
        raise Conflict(gettext("You cannot deactivate your own account."))
    with transaction.atomic():
        operator = Operator.objects.select_for_update().get(pk=operator.pk)
        if not operator.is_active:
            raise Conflict(gettext("This account is already deactivated."))
        if operator.has_role(Role.ADMIN) and _active_admins_other_than(operator) == 0:
            raise Conflict(gettext("This is the last active admin."))
        operator.is_active = False
        operator.save(update_fields=["is_active"])
        sessions = revoke_all_sessions(operator)
        tokens = ApiToken.objects.filter(operator=operator, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        audit_record(
            actor=actor,
            action="operator.deactivate",
            target=operator,
            before={"is_active": True},
            after={"is_active": False, "sessions_revoked": sessions, "tokens_revoked": tokens},
        )


def operator_force_logout(*, actor: Operator, operator: Operator) -> int:
    """End every session of the operator; returns how many were ended."""
    with transaction.atomic():
        count = revoke_all_sessions(operator)
        audit_record(
            actor=actor,
            action="operator.force_logout",
            target=operator,
            after={"sessions_revoked": count},
        )
    return count
