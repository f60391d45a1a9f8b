"""Print the current TOTP code of an operator: a stand-in for a phone in demos and browser
tests. Refuses to run unless DEBUG is on."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_otp.oath import totp

from identity.models import Operator
from identity.otp import confirmed_totp


def current_code(operator: Operator) -> str:
    device = confirmed_totp(operator)
    if device is None:
        raise LookupError(f"{operator.username} has no authenticator enrolled.")
    value = totp(device.bin_key, device.step, device.t0, device.digits, device.drift)
    return f"{value:0{device.digits}d}"


class Command(BaseCommand):
    help = "Print the current TOTP code of a demo operator (DEBUG only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("totp_code is a demo aid and only runs with DEBUG on.")
        operator = Operator.objects.filter(username=options["username"]).first()
        if operator is None:
            raise CommandError("No such operator.")
        try:
            code = current_code(operator)
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
        remaining = 30 - int(time.time()) % 30
        self.stdout.write(f"{code}  (valid for about {remaining}s)")
