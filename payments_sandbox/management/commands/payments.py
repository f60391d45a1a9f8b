"""`manage.py payments reconcile --from 2026-01-01 --to 2026-01-31` and
`manage.py payments recover` (settle refunds stuck in processing).

`reconcile` exits like `diff`, so that cron or CI alerts on a non-zero exit: 0 when we and the
provider agree on every refund of the period, 1 when it found mismatches (the report is
written and printed all the same), 2 when it could not reconcile (bad dates, a period too
long)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from backoffice.errors import DomainError
from payments_sandbox.services import reconcile_run, refund_recover_stuck

EXIT_AGREE = 0
EXIT_MISMATCHES = 1
EXIT_ERROR = 2


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        # Parsed before the command runs: an argparse error (usage, exit 2), not a CommandError,
        # which would escape `run_from_argv` as a traceback.
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD).") from exc


class Command(BaseCommand):
    help = "Payments operations: reconcile a period against the provider, recover stuck refunds."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        reconcile = sub.add_parser(
            "reconcile",
            help="Compare our refunds with the provider's.",
            description=(
                "Compare our executed refunds with the provider's for a period and write a "
                "report. Exit status: 0 everything agrees, 1 mismatches found (each printed), "
                "2 the period could not be reconciled."
            ),
        )
        reconcile.add_argument("--from", dest="date_from", required=True, type=_date)
        reconcile.add_argument("--to", dest="date_to", required=True, type=_date)
        recover = sub.add_parser("recover", help="Settle refunds stuck in processing.")
        recover.add_argument("--older-than", type=int, default=300, help="seconds")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "reconcile":
            try:
                report = reconcile_run(
                    actor=None, date_from=options["date_from"], date_to=options["date_to"]
                )
            except DomainError as exc:
                raise CommandError(exc.message, returncode=EXIT_ERROR) from exc
            items = list(report.items.order_by("id"))
            self.stdout.write(
                f"Reconciliation #{report.pk} {report.period_start}..{report.period_end}: "
                f"{report.compared} compared, {len(items)} mismatch(es)."
            )
            for item in items:
                self.stdout.write(
                    f"  {item.kind:<8} key={item.idempotency_key} ours={json.dumps(item.ours)} "
                    f"theirs={json.dumps(item.theirs)}"
                )
            if items:
                # A mismatch is work for a person: the non-zero exit is what makes cron or CI
                # tell one.
                raise CommandError(
                    f"{len(items)} mismatch(es) in reconciliation #{report.pk}: see "
                    "docs/operations.md for what to do with each kind.",
                    returncode=EXIT_MISMATCHES,
                )
        else:
            counts = refund_recover_stuck(older_than_seconds=options["older_than"])
            self.stdout.write(json.dumps(counts))
