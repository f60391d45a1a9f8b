"""Enrolment of the authenticator app and the backup codes."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice.errors import Conflict
from identity import throttle
from identity.audit import audit_record
from identity.models import Operator
from identity.otp import (
    BACKUP_CODE_COUNT,
    BACKUP_DEVICE_NAME,
    TOTP_DEVICE_NAME,
    new_backup_code,
    normalize_code,
)
from identity.services.login import OtpPurpose, OtpRefused


def _replace_backup_codes(operator: Operator) -> list[str]:
    StaticDevice.objects.filter(user=operator).delete()
    device = StaticDevice.objects.create(user=operator, name=BACKUP_DEVICE_NAME, confirmed=True)
    codes = [new_backup_code() for _ in range(BACKUP_CODE_COUNT)]
    StaticToken.objects.bulk_create([StaticToken(device=device, token=code) for code in codes])
    return codes


def operator_totp_enroll_start(*, operator: Operator) -> TOTPDevice:
    """A fresh, unconfirmed TOTP device. Each call replaces the previous pending one, so a
    secret is shown once: reloading the page shows a new secret, never the old one."""
    with transaction.atomic():
        if TOTPDevice.objects.filter(user=operator, confirmed=True).exists():
            raise Conflict(gettext("An authenticator app is already enrolled for this account."))
        TOTPDevice.objects.filter(user=operator, confirmed=False).delete()
        device = TOTPDevice.objects.create(user=operator, name=TOTP_DEVICE_NAME, confirmed=False)
        audit_record(actor=operator, action="operator.totp_enroll_start", target=operator)
    return device


def operator_totp_enroll_confirm(
    *, operator: Operator, device_id: int, code: str, ip: str | None
) -> tuple[TOTPDevice, list[str]]:
    """Confirm the pending device with its first valid code; returns the device and the
    ten backup codes (shown once). A wrong code counts as an OTP failure."""
    keys = throttle.keys_for(operator.get_username(), ip)
    with transaction.atomic():
        device = (
            TOTPDevice.objects.select_for_update()
            .filter(pk=device_id, user=operator, confirmed=False)
            .first()
        )
        if device is None:
            raise Conflict(gettext("This enrolment has expired. Start again."))
        locked = throttle.locked_until(keys) is not None
        if not locked and device.verify_token(normalize_code(code)):
            device.confirmed = True
            device.save(update_fields=["confirmed"])
            codes = _replace_backup_codes(operator)
            throttle.reset(keys[0])
            audit_record(
                actor=operator,
                action="operator.totp_enroll",
                target=operator,
                after={"device": device.name, "backup_codes": len(codes)},
            )
            return device, codes
        newly_locked = [] if locked else throttle.record_failure(keys)
        audit_record(
            actor=operator,
            action="otp.lockout" if newly_locked else "otp.failure",
            target=operator,
            after={
                "purpose": str(OtpPurpose.ENROLL),
                "reason": "locked" if locked else "bad_code",
                "locked": sorted(str(k.scope) for k in newly_locked),
            },
        )
    if locked or newly_locked:
        raise OtpRefused(gettext("Too many attempts. Wait a few minutes and try again."))
    raise OtpRefused(gettext("That code is not valid. Check the time on your phone and try again."))


def backup_codes_regenerate(*, actor: Operator) -> list[str]:
    """Replace all of the actor's backup codes with ten new ones (shown once)."""
    with transaction.atomic():
        if not TOTPDevice.objects.filter(user=actor, confirmed=True).exists():
            raise Conflict(gettext("Enrol an authenticator app before generating backup codes."))
        codes = _replace_backup_codes(actor)
        audit_record(
            actor=actor,
            action="operator.backup_codes_regenerate",
            target=actor,
            after={"backup_codes": len(codes)},
        )
    return codes
