"""Demo operators for `manage.py seed_demo`: one documented password, and TOTP secrets and
backup codes derived from the username and SECRET_KEY, so re-running the seeder changes
nothing and the secrets it prints keep working."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.audit import audit_record
from identity.models import Operator, Role
from identity.otp import (
    BACKUP_CODE_COUNT,
    BACKUP_DEVICE_NAME,
    TOTP_DEVICE_NAME,
    confirmed_totp,
    hex_key_from_bytes,
    secret_b32,
)
from identity.services import operator_create

DEMO_PASSWORD = "demo-backoffice-2fa"

DEMO_OPERATORS: list[tuple[str, str, str]] = [
    ("alice", "Alice (agent)", Role.AGENT),
    ("carol", "Carol (agent)", Role.AGENT),
    ("bob", "Bob (approver)", Role.APPROVER),
    ("erin", "Erin (approver)", Role.APPROVER),
    ("sam", "Sam (supervisor)", Role.SUPERVISOR),
    ("ada", "Ada (admin)", Role.ADMIN),
    ("audrey", "Audrey (auditor)", Role.AUDITOR),
    ("rita", "Rita (release manager)", Role.RELEASE_MANAGER),
]

_CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def _derive(label: str) -> bytes:
    return hmac.new(settings.SECRET_KEY.encode(), label.encode(), hashlib.sha256).digest()


def demo_totp_key(username: str) -> bytes:
    return _derive(f"demo-totp:{username}")[:20]


def demo_backup_codes(username: str) -> list[str]:
    codes = []
    for index in range(BACKUP_CODE_COUNT):
        digest = _derive(f"demo-backup:{username}:{index}")
        codes.append("".join(_CODE_ALPHABET[b % len(_CODE_ALPHABET)] for b in digest[:10]))
    return codes


@dataclass(frozen=True)
class DemoRow:
    username: str
    role: str
    password: str
    totp_secret: str
    backup_code: str


def _ensure_devices(operator: Operator) -> None:
    """Give a new demo operator its derived authenticator secret and backup codes."""
    with transaction.atomic():
        TOTPDevice.objects.create(
            user=operator,
            name=TOTP_DEVICE_NAME,
            key=hex_key_from_bytes(demo_totp_key(operator.username)),
            confirmed=True,
        )
        static = StaticDevice.objects.create(user=operator, name=BACKUP_DEVICE_NAME, confirmed=True)
        StaticToken.objects.bulk_create(
            [
                StaticToken(device=static, token=code)
                for code in demo_backup_codes(operator.username)
            ]
        )
        audit_record(
            actor=None,
            action="operator.totp_enroll",
            target=operator,
            after={"seeded": True, "backup_codes": BACKUP_CODE_COUNT},
        )


def ensure_demo_operators() -> tuple[dict[str, Operator], list[DemoRow]]:
    operators: dict[str, Operator] = {}
    rows: list[DemoRow] = []
    for username, display_name, role in DEMO_OPERATORS:
        operator = Operator.objects.filter(username=username).first()
        if operator is None:
            operator, _ = operator_create(
                actor=None,
                username=username,
                display_name=display_name,
                email=f"{username}@example.test",
                roles=[role],
                password=DEMO_PASSWORD,
            )
            _ensure_devices(operator)
        operators[username] = operator
        device = confirmed_totp(operator)
        token = (
            StaticToken.objects.filter(device__user=operator, device__confirmed=True)
            .order_by("pk")
            .values_list("token", flat=True)
            .first()
        )
        rows.append(
            DemoRow(
                username=username,
                role=str(role),
                password=DEMO_PASSWORD,
                totp_secret=secret_b32(device) if device else "(not enrolled: enrols at login)",
                backup_code=token or "(none left)",
            )
        )
    return operators, rows
