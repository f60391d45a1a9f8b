"""Demo data for `make run`. Idempotent: run on every start, it creates what is missing and
never duplicates rows or changes secrets.

Each app adds its own seeder module to SEEDERS: a module with
`seed(*, operators: dict[str, Operator]) -> list[str]` returning lines to print.
"""

from __future__ import annotations

import os
import shlex
import sys
from importlib import import_module
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.test.utils import override_settings

from identity.demo import ensure_demo_operators

SEEDERS = ["identity.seed", "payments_sandbox.seed", "tickets.seed"]
# Its lines (the service principal's API token, shown once) are printed last, under the login
# table, where a newcomer reading the end of the output finds them.
SUMMARY_SEEDERS = frozenset({"identity.seed"})


def manage_command(*args: str) -> str:
    """The shell command that runs `manage.py ARGS` in this install as typed in a terminal
    outside make: this process's Python (the project's virtualenv, not whatever `python` is on
    the PATH), DEBUG on (demo aids refuse to run without it, and without it the settings ask
    for a SECRET_KEY), and the same VAR_DIR when one was set."""
    base = Path(settings.BASE_DIR)
    python, manage = Path(sys.executable), base / "manage.py"
    if Path.cwd().resolve() == base.resolve():
        manage = Path("manage.py")
        if python.is_relative_to(base):
            python = python.relative_to(base)
    words = ["DEBUG=1"]
    if os.environ.get("VAR_DIR"):
        words.append(f"VAR_DIR={shlex.quote(os.environ['VAR_DIR'])}")
    words += [shlex.quote(str(python)), shlex.quote(str(manage)), *args]
    return " ".join(words)


class Command(BaseCommand):
    help = "Create demo operators (with 2FA) and demo data; safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        operators, rows = ensure_demo_operators()
        summary: list[str] = []
        # Demo data raises real notifications (assignments, SLA warnings); their emails go to
        # made-up addresses, so they are kept in memory rather than sent through whatever
        # EMAIL_BACKEND is configured.
        with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
            for dotted in SEEDERS:
                module = import_module(dotted)
                lines = module.seed(operators=operators)
                if dotted in SUMMARY_SEEDERS:
                    summary += lines
                    continue
                for line in lines:
                    self.stdout.write(line)
        # The login table, then the API token: the end of the output, which a person reads.
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
            "  Current code without a phone (DEBUG only), from this directory: "
            + manage_command("totp_code", "<username>")
        )
        for line in summary:
            self.stdout.write(line)
