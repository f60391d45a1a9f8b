"""Password and one-time-code checks, with throttling and the audit trail.

The password step never tells an unknown account, a wrong password and a locked account
apart: one message, and the same work (a full password hash) on every path.
"""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.hashers import make_password
from django.db import models, transaction
from django.utils.translation import gettext, gettext_lazy
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice.errors import Forbidden
from identity import throttle
from identity.audit import audit_record
from identity.models import Operator, OperatorKind, OperatorSession
from identity.otp import backup_codes_left, normalize_code

GENERIC_LOGIN_ERROR = "Invalid username or password, or too many attempts. Try again later."


class LoginRefused(Forbidden):
    code = "login_refused"


class OtpRefused(Forbidden):
    code = "otp_refused"


class OtpPurpose(models.TextChoices):
    LOGIN = "login", gettext_lazy("Login")
    STEPUP = "stepup", gettext_lazy("Step-up")
    ENROLL = "enroll", gettext_lazy("Enrolment")


def login_password_check(*, username: str, password: str, ip: str | None) -> Operator:
    """First factor. Returns the operator, or records the failure and raises LoginRefused.

    The login itself is audited when the second factor succeeds (`login.success`)."""
    username = username.strip()[:150]
    keys = throttle.keys_for(username, ip)
    # Counted and decided before the hash is checked (identity.throttle): parallel guesses
    # cannot all read "not locked" and all get a real check.
    attempt = throttle.attempt_reserve(keys)
    if attempt.locked:
        # The same work as a check (a full hash), against no account: the three refusals
        # cost the same time, and a locked account's password is never tested.
        make_password(password)
        user = None
    else:
        user = authenticate(None, username=username, password=password)
    if isinstance(user, Operator) and user.kind == OperatorKind.HUMAN:
        throttle.attempt_release(attempt)
        return user
    with transaction.atomic():
        account = Operator.objects.filter(username=username).first()
        audit_record(
            actor=None,
            action="login.lockout" if attempt.newly_locked else "login.failure",
            target=account,
            target_type="identity.operator",
            target_id=account.pk if account else "",
            after={
                "username": username,
                "reason": "locked" if attempt.locked else "bad_credentials",
                "locked": sorted(str(k.scope) for k in attempt.newly_locked),
            },
        )
    raise LoginRefused(GENERIC_LOGIN_ERROR)


def _match_device(operator: Operator, code: str) -> Device | None:
    if len(code) == 6 and code.isdigit():
        for totp in TOTPDevice.objects.select_for_update().filter(user=operator, confirmed=True):
            # verify_token also refuses replays of the last accepted code (last_t).
            if totp.verify_token(code):
                return totp
        return None
    # Lock the device rows so one backup code cannot be spent twice by concurrent requests.
    for static in StaticDevice.objects.select_for_update().filter(user=operator, confirmed=True):
        if static.verify_token(code):
            return static
    return None


def otp_verify(
    *, operator: Operator, code: str, ip: str | None, purpose: OtpPurpose | str
) -> Device:
    """Second factor at login or step-up: a TOTP code, or a single-use backup code.

    Success at login clears the account's failure counter. Failures count against the same
    account and address counters as passwords."""
    purpose = OtpPurpose(purpose)
    keys = throttle.keys_for(operator.get_username(), ip)
    code = normalize_code(code)
    # Reserved before any code is checked, as for passwords (identity.throttle).
    attempt = throttle.attempt_reserve(keys)
    with transaction.atomic():
        device = None if attempt.locked or not code else _match_device(operator, code)
        if device is not None:
            throttle.attempt_release(attempt)
            if purpose == OtpPurpose.LOGIN:
                throttle.reset(keys[0])
            if isinstance(device, StaticDevice):
                action = "otp.backup_code_use"
                after: dict[str, object] = {
                    "purpose": str(purpose),
                    "backup_codes_left": backup_codes_left(operator),
                }
            else:
                action = "login.success" if purpose == OtpPurpose.LOGIN else "stepup.success"
                after = {"method": "totp"}
            audit_record(actor=operator, action=action, target=operator, after=after)
            return device
        audit_record(
            actor=operator,
            action="otp.lockout" if attempt.newly_locked else "otp.failure",
            target=operator,
            after={
                "purpose": str(purpose),
                "reason": "locked" if attempt.locked else "bad_code",
                "locked": sorted(str(k.scope) for k in attempt.newly_locked),
            },
        )
    if attempt.locked or attempt.newly_locked:
        raise OtpRefused(gettext("Too many attempts. Wait a few minutes and try again."))
    raise OtpRefused(gettext("That code is not valid. Check your authenticator app and try again."))


def logout_record(*, actor: Operator, session_key: str | None) -> None:
    """Record a logout and forget the session row; the caller then ends the Django session."""
    with transaction.atomic():
        if session_key:
            OperatorSession.objects.filter(session_key=session_key).delete()
        audit_record(actor=actor, action="logout", target=actor)
