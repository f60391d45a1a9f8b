"""`manage.py audit verify`: walk the hash chain and fail naming the first bad event, then
check it against the anchors kept outside the database: `--expect-head SEQ:HASH` (what
`audit head` printed earlier) and the signed checkpoints in AUDIT_CHECKPOINT_FILE.
`manage.py audit head`: print the chain head, to anchor it somewhere outside the database.
`manage.py audit checkpoint`: verify, then append a signed checkpoint of the head to the file
(run it from cron or the scheduler; see identity.audit_anchor)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from identity.audit_anchor import (
    Anchor,
    AnchorError,
    anchor_problem,
    checkpoint_append,
    checkpoint_path,
    checkpoints_read,
    parse_head,
)
from identity.audit_verify import VerifyResult, verify_chain
from identity.models import AuditChainHead


class Command(BaseCommand):
    help = "Audit trail tools: `verify` the hash chain, print its `head`, sign a `checkpoint`."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="subcommand", required=True)
        verify = sub.add_parser("verify", help="Check every event's hash and linkage.")
        verify.add_argument("--chunk-size", type=int, default=5000)
        verify.add_argument("--database", default="default")
        verify.add_argument(
            "--workers",
            type=int,
            default=1,
            help="processes checking contiguous parts of the chain in parallel",
        )
        verify.add_argument(
            "--expect-head",
            action="append",
            default=[],
            metavar="SEQ:HASH",
            help="a head recorded outside the database (`audit head`); the chain must still "
            "hold event SEQ with HASH (repeatable)",
        )
        verify.add_argument(
            "--exact",
            action="store_true",
            help="the chain must end exactly at the (last) --expect-head: no event after it",
        )
        verify.add_argument(
            "--checkpoints",
            help="signed checkpoint file to check against (default: AUDIT_CHECKPOINT_FILE)",
        )
        head = sub.add_parser("head", help="Print the last sequence number and hash.")
        head.add_argument("--database", default="default")
        checkpoint = sub.add_parser(
            "checkpoint", help="Verify, then append a signed checkpoint of the head."
        )
        checkpoint.add_argument("--database", default="default")
        checkpoint.add_argument("--file", help="default: AUDIT_CHECKPOINT_FILE")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["subcommand"] == "head":
            row = AuditChainHead.objects.using(options["database"]).filter(pk=1).first()
            self.stdout.write(f"#{row.seq if row else 0} {row.hash if row else '0' * 64}")
            return
        if options["subcommand"] == "checkpoint":
            self._checkpoint(options)
            return
        self._verify(options)

    def _anchors(
        self, options: dict[str, Any], path: Path | None
    ) -> tuple[list[Anchor], list[Anchor]]:
        """(expected heads, checkpoints in `path`); CommandError for any unusable anchor."""
        try:
            heads = [parse_head(text) for text in options.get("expect_head") or []]
            checkpoints = checkpoints_read(path) if path else []
        except AnchorError as exc:
            raise CommandError(f"audit anchors UNUSABLE: {exc}") from exc
        return heads, checkpoints

    def _check(self, options: dict[str, Any], path: Path | None) -> tuple[VerifyResult, int]:
        heads, checkpoints = self._anchors(options, path)
        result = verify_chain(
            chunk_size=options.get("chunk_size", 5000),
            using=options["database"],
            workers=options.get("workers", 1),
        )
        if result.problem is not None:
            raise CommandError(
                f"audit chain BROKEN ({result.problem.kind}): {result.problem.message}. "
                f"{result.checked} events before it verified."
            )
        exact_head = heads[-1] if heads and options.get("exact") else None
        for anchor in [*checkpoints, *heads]:
            problem = anchor_problem(
                anchor,
                last_seq=result.last_seq,
                using=options["database"],
                exact=anchor is exact_head,
            )
            if problem is not None:
                raise CommandError(
                    f"audit chain BROKEN ({problem.kind}): {problem.message}. "
                    f"The chain itself is consistent ({result.checked} events): it was "
                    "rebuilt by someone who could write the table."
                )
        return result, len(checkpoints) + len(heads)

    def _verify(self, options: dict[str, Any]) -> None:
        if options.get("exact") and not options.get("expect_head"):
            raise CommandError("--exact needs --expect-head SEQ:HASH.")
        given = options.get("checkpoints")
        if given and not Path(given).exists():
            raise CommandError(f"audit anchors UNUSABLE: no checkpoint file {given}")
        started = time.perf_counter()
        result, anchors = self._check(options, Path(given) if given else checkpoint_path())
        elapsed = time.perf_counter() - started
        self.stdout.write(
            f"audit chain OK: {result.checked} events verified in {elapsed:.2f}s; "
            f"head #{result.last_seq} {result.last_hash}; {anchors} external anchors hold"
        )
        if not anchors:
            self.stdout.write(
                "No external anchor was checked: a chain truncated, cut or recomputed by "
                "someone who can write the table would also verify (docs/security.md)."
            )

    def _checkpoint(self, options: dict[str, Any]) -> None:
        given = options.get("file")
        path = Path(given) if given else checkpoint_path()
        if path is None:
            raise CommandError("Set AUDIT_CHECKPOINT_FILE or pass --file.")
        self._check(options, path)
        try:
            anchor = checkpoint_append(path, using=options["database"])
        except AnchorError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"audit checkpoint #{anchor.seq} {anchor.hash} signed into {path}")
