"""`manage.py payments reconcile --from 2026-01-01 --to 2026-01-31` and
`manage.py payments recover` (settle refunds stuck in processing)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from backoffice.errors import DomainError
from payments_sandbox.services import reconcile_run, refund_recover_stuck


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise CommandError(f"{text!r} is not a date (YYYY-MM-DD).") from exc


class Command(BaseCommand):
    help = "Payments operations: reconcile a period against the provider, recover stuck refunds."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        reconcile = sub.add_parser("reconcile", help="Compare our refunds with the provider's.")
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
                raise CommandError(exc.message) from exc
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
        else:
            counts = refund_recover_stuck(older_than_seconds=options["older_than"])
            self.stdout.write(json.dumps(counts))
