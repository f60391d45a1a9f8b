"""Helpers for identity tests: current TOTP codes and a client that logged in for real."""

from __future__ import annotations

from typing import Any

from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.models import Operator
from tests.conftest import PASSWORD


def code_for(device: TOTPDevice, offset_steps: int = 0) -> str:
    """The code an authenticator app shows now (or `offset_steps` periods later)."""
    value = totp(device.bin_key, device.step, device.t0, device.digits, device.drift + offset_steps)
    return f"{value:0{device.digits}d}"


def device_of(operator: Operator) -> TOTPDevice:
    device = TOTPDevice.objects.filter(user=operator, confirmed=True).first()
    assert device is not None
    return device


def password_login(client: Client, username: str, password: str = PASSWORD, **extra: Any):
    return client.post("/login/", {"username": username, "password": password}, **extra)


def full_login(client: Client, operator: Operator, **extra: Any) -> None:
    response = password_login(client, operator.username, **extra)
    assert response.status_code == 302, response.content[:500]
    device = device_of(operator)
    # TOTP refuses a code already accepted in this 30 s period (replay protection); tests
    # that log in twice quickly act as if the next period had started.
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
    response = client.post("/login/verify/", {"code": code_for(device)}, **extra)
    assert response.status_code == 302, response.content[:500]
