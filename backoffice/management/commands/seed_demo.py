"""Demo data for `make run`. Idempotent: run on every start, it creates what is missing and
never duplicates rows or changes secrets.

Each app adds its own seeder module to SEEDERS: a module with
`seed(*, operators: dict[str, Operator]) -> list[str]` returning lines to print.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.core.management.base import BaseCommand
from django.test.utils import override_settings

from identity.demo import ensure_demo_operators

SEEDERS = ["identity.seed", "payments_sandbox.seed", "tickets.seed"]


class Command(BaseCommand):
    help = "Create demo operators (with 2FA) and demo data; safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        operators, rows = ensure_demo_operators()
        # Demo data raises real notifications (assignments, SLA warnings); their emails go to
        # made-up addresses, so they are kept in memory rather than sent through whatever
        # EMAIL_BACKEND is configured.
        with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
            for dotted in SEEDERS:
                module = import_module(dotted)
                for line in module.seed(operators=operators):
                    self.stdout.write(line)
        # The login table last, so it is what a person sees above the server's output.
        header = ("username", "role", "password", "TOTP secret (base32)", "backup code")
        table = [header] + [
            (r.username, r.role, r.password, r.totp_secret, r.backup_code) for r in rows
        ]
        widths = [max(len(row[i]) for row in table) for i in range(len(header))]
        self.stdout.write("Demo operators (add the TOTP secret to an authenticator app):")
        for row in table:
            cells = (cell.ljust(w) for cell, w in zip(row, widths, strict=True))
            self.stdout.write(("  " + "  ".join(cells)).rstrip())
        self.stdout.write(
            "  Current code without a phone (DEBUG only): python manage.py totp_code <username>"
        )
