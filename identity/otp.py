"""Second-factor devices: TOTP (an authenticator app) and single-use backup codes, both
django-otp devices. Pure helpers; the audited writes are in identity.services."""

from __future__ import annotations

import base64
import binascii
import secrets
from io import BytesIO
from urllib.parse import quote

import qrcode
import qrcode.image.svg
from django.conf import settings
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.models import Operator

BACKUP_CODE_COUNT = 10
TOTP_DEVICE_NAME = "Authenticator app"
BACKUP_DEVICE_NAME = "Backup codes"


def confirmed_totp(operator: Operator) -> TOTPDevice | None:
    return TOTPDevice.objects.filter(user=operator, confirmed=True).order_by("pk").first()


def has_second_factor(operator: Operator) -> bool:
    return TOTPDevice.objects.filter(user=operator, confirmed=True).exists()


def backup_device(operator: Operator) -> StaticDevice | None:
    return StaticDevice.objects.filter(user=operator, confirmed=True).order_by("pk").first()


def backup_codes_left(operator: Operator) -> int:
    return StaticToken.objects.filter(device__user=operator, device__confirmed=True).count()


def new_backup_code() -> str:
    """Ten characters from an alphabet without look-alikes (0/O, 1/l), about 50 bits."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(BACKUP_CODE_COUNT))


def normalize_code(raw: str) -> str:
    return "".join(raw.split()).replace("-", "").lower()


def secret_b32(device: TOTPDevice) -> str:
    """The shared secret as an authenticator app expects it (base32, no padding)."""
    return base64.b32encode(device.bin_key).decode("ascii").rstrip("=")


def hex_key_from_bytes(raw: bytes) -> str:
    return binascii.hexlify(raw).decode("ascii")


def provisioning_uri(device: TOTPDevice) -> str:
    issuer = str(getattr(settings, "OTP_TOTP_ISSUER", "Backoffice"))
    label = quote(f"{issuer}:{device.user.get_username()}")
    return (
        f"otpauth://totp/{label}?secret={secret_b32(device)}&issuer={quote(issuer)}"
        f"&digits={device.digits}&period={device.step}&algorithm=SHA1"
    )


def qr_svg(data: str) -> str:
    """An inline SVG QR code, drawn locally: the secret never leaves the server."""
    image = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    buffer = BytesIO()
    image.save(buffer)
    svg = buffer.getvalue().decode("utf-8")
    # Drop the XML declaration so the markup can be embedded in HTML.
    return svg[svg.index("<svg") :]


def session_verified(user: object) -> bool:
    """True when this request's user passed a second factor in this session.

    django-otp's OTPMiddleware attaches `is_verified()` to the user object of each request,
    so it exists at runtime but not on the Operator type; read it here and nowhere else.
    """
    is_verified = getattr(user, "is_verified", None)
    return bool(getattr(user, "is_authenticated", False) and is_verified and is_verified())
