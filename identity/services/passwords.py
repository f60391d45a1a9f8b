"""Operators set and change their own passwords.

An admin-created account starts with a temporary password that the admin saw; the operator
must replace it before anything else is reachable, so the admin never knows the password that
protects the account. Later changes need the current password and a current one-time code.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import password_validation
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from backoffice.errors import Forbidden, ValidationFailed
from identity import throttle
from identity.audit import audit_record
from identity.models import Operator, OperatorSession
from identity.otp import normalize_code
from identity.services.login import _match_device


class PasswordChangeRefused(Forbidden):
    code = "password_change_refused"


def temporary_password() -> str:
    """A password an admin hands over (a new account's, an approved reset's): only a way in to
    set one's own, since `must_change_password` goes with it."""
    return secrets.token_urlsafe(12)


def _validate_new(operator: Operator, old_password: str, new_password: str) -> None:
    try:
        password_validation.validate_password(new_password, user=operator)
    except ValidationError as exc:
        raise ValidationFailed(
            gettext("Choose a stronger password."), fields={"new_password": list(exc.messages)}
        ) from exc
    if new_password == old_password:
        raise ValidationFailed(
            gettext("Choose a password you have not been using."),
            fields={"new_password": [gettext("The new password must differ from the old one.")]},
        )


def operator_password_change(
    *,
    operator: Operator,
    old_password: str,
    new_password: str,
    code: str | None,
    ip: str | None,
    keep_session_key: str | None,
) -> int:
    """Replace the operator's password with one only they know. Returns how many of their
    other sessions were ended.

    `code` (a TOTP or backup code) is required unless the change is the forced one after a
    first login (`must_change_password`), which the session reaches straight from its second
    factor. Wrong old passwords and codes count against the login throttle, so this form is
    no way round the lockout. Every other session of the operator ends: whoever else knew the
    old password, or holds a browser signed in with it, is out."""
    forced = operator.must_change_password
    _validate_new(operator, old_password, new_password)
    keys = throttle.keys_for(operator.get_username(), ip)
    attempt = throttle.attempt_reserve(keys)
    with transaction.atomic():
        operator = Operator.objects.select_for_update().get(pk=operator.pk)
        reason = ""
        if attempt.locked:
            reason = "locked"
        elif not operator.check_password(old_password):
            reason = "bad_password"
        elif not forced and (
            not code or _match_device(operator, normalize_code(code or "")) is None
        ):
            reason = "bad_code"
        if not reason:
            throttle.attempt_release(attempt)
            operator.set_password(new_password)
            operator.must_change_password = False
            operator.save(update_fields=["password", "must_change_password"])
            others = OperatorSession.objects.filter(operator=operator).exclude(
                session_key=keep_session_key or ""
            )
            keys_ended = list(others.values_list("session_key", flat=True))
            Session.objects.filter(session_key__in=keys_ended).delete()
            others.delete()
            audit_record(
                actor=operator,
                action="operator.password_change",
                target=operator,
                after={"forced": forced, "other_sessions_ended": len(keys_ended)},
            )
            return len(keys_ended)
        audit_record(
            actor=operator,
            action="operator.password_change_failure",
            target=operator,
            after={
                "reason": reason,
                "locked": sorted(str(k.scope) for k in attempt.newly_locked),
            },
        )
    if reason == "locked" or attempt.newly_locked:
        raise PasswordChangeRefused(gettext("Too many attempts. Wait a few minutes and try again."))
    if reason == "bad_password":
        raise ValidationFailed(
            gettext("Your password was not changed."),
            fields={"old_password": [gettext("This is not your current password.")]},
        )
    raise ValidationFailed(
        gettext("Your password was not changed."),
        fields={"code": [gettext("That code is not valid. Check your authenticator app.")]},
    )
