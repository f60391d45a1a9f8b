"""Walk the audit chain and name the first event that was altered, deleted or reordered.

The table is streamed in seq order by keyset pagination (`seq > last ORDER BY seq LIMIT n`)
over raw value tuples, so memory stays flat whatever the size and every chunk is an
index range scan on both SQLite and PostgreSQL (no server-side cursor to keep open).

Checks, per event, in order:
  1. seq is the next integer         -> a gap means events were deleted
  2. prev_hash equals the previous event's hash
                                     -> if the *next* event chains onto the expected hash
                                        instead, these two were reordered; otherwise an
                                        earlier event was removed or its hash rewritten
  3. sha256(prev_hash || canonical content) equals the stored hash -> altered
Then the last event must be the one AuditChainHead points at (catches deletions at the
tail, and a chain recomputed after an edit without also rewriting the head).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connections

from identity.audit import CONTENT_FIELDS, GENESIS_HASH, canonical_time, hash_values
from identity.models import AuditChainHead, AuditEvent

_FIELDS = ("id", *CONTENT_FIELDS, "prev_hash", "hash")
_SEQ = 1
_PREV = len(_FIELDS) - 2
_HASH = len(_FIELDS) - 1


@dataclass(frozen=True)
class ChainProblem:
    kind: str  # "deleted" | "reordered" | "altered" | "broken_link" | "head_mismatch"
    seq: int
    event_id: int | None
    message: str


@dataclass(frozen=True)
class VerifyResult:
    checked: int
    last_seq: int
    last_hash: str
    problem: ChainProblem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def stream_events(chunk_size: int = 5000, using: str = "default") -> Iterator[tuple[Any, ...]]:
    """(id, *CONTENT_FIELDS, prev_hash, hash) in seq order, occurred_at as canonical text and
    before/after decoded. Raw SQL on purpose: Django's per-value converters cost more than
    the hashing, and this loop runs a million times."""
    connection = connections[using]
    table = connection.ops.quote_name(AuditEvent._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(name) for name in _FIELDS)
    # Identifiers come from the model, quoted by the backend; values are parameters.
    sql = f"SELECT {columns} FROM {table} WHERE seq > %s ORDER BY seq LIMIT %s"  # noqa: S608
    utc = dt.UTC
    loads = json.loads
    last = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(sql, [last, chunk_size])
            rows = cursor.fetchall()
        if not rows:
            return
        for row in rows:
            at = row[2]
            if isinstance(at, str):
                at = dt.datetime.fromisoformat(at)
            if at.tzinfo is None:  # SQLite: Django stores naive UTC
                at = at.replace(tzinfo=utc)
            before, after = row[9], row[10]
            yield (
                *row[:2],
                at.isoformat(timespec="microseconds") if at.tzinfo is utc else canonical_time(at),
                *row[3:9],
                loads(before) if isinstance(before, str | bytes) else before,
                loads(after) if isinstance(after, str | bytes) else after,
                row[11],
                None if row[12] is None else str(row[12]),
                row[13],
                row[14],
            )
        last = rows[-1][_SEQ]


def _describe(row: tuple[Any, ...]) -> str:
    return f"event #{row[_SEQ]} (id {row[0]}, {row[_FIELDS.index('action')]})"


def verify_chain(*, chunk_size: int = 5000, using: str = "default") -> VerifyResult:
    expected_seq = 1
    prev_hash = GENESIS_HASH
    checked = 0
    suspect: tuple[Any, ...] | None = None  # broke the link; judged by the row after it
    for row in stream_events(chunk_size, using):
        if suspect is not None:
            return VerifyResult(
                checked, expected_seq - 1, prev_hash, _judge_link(suspect, row, prev_hash)
            )
        seq = row[_SEQ]
        if seq != expected_seq:
            missing = (
                f"#{expected_seq}" if seq == expected_seq + 1 else f"#{expected_seq}..#{seq - 1}"
            )
            problem = ChainProblem(
                "deleted",
                expected_seq,
                None,
                f"event {missing} is missing (deleted); the chain resumes at {_describe(row)}",
            )
            return VerifyResult(checked, expected_seq - 1, prev_hash, problem)
        if row[_PREV] != prev_hash:
            suspect = row
            continue
        if hash_values(prev_hash, row[1:_PREV]) != row[_HASH]:
            problem = ChainProblem(
                "altered",
                seq,
                row[0],
                f"{_describe(row)} was altered: its content no longer matches its hash",
            )
            return VerifyResult(checked, expected_seq - 1, prev_hash, problem)
        prev_hash = row[_HASH]
        expected_seq += 1
        checked += 1
    if suspect is not None:
        return VerifyResult(
            checked, expected_seq - 1, prev_hash, _judge_link(suspect, None, prev_hash)
        )
    return VerifyResult(
        checked, expected_seq - 1, prev_hash, _check_head(expected_seq - 1, prev_hash, using)
    )


def _judge_link(
    suspect: tuple[Any, ...], following: tuple[Any, ...] | None, expected_prev: str
) -> ChainProblem:
    seq = suspect[_SEQ]
    if following is not None and following[_PREV] == expected_prev:
        return ChainProblem(
            "reordered",
            seq,
            suspect[0],
            f"{_describe(suspect)} is out of order: it was chained after another event, and "
            f"{_describe(following)} chains where it should be (reordered)",
        )
    return ChainProblem(
        "broken_link",
        seq,
        suspect[0],
        f"{_describe(suspect)} does not chain onto event #{seq - 1}: an event before it was "
        "deleted or replaced, or its prev_hash was altered",
    )


def _check_head(last_seq: int, last_hash: str, using: str) -> ChainProblem | None:
    head = AuditChainHead.objects.using(using).filter(pk=1).first()
    head_seq = head.seq if head else 0
    head_hash = head.hash if head else GENESIS_HASH
    if head_seq > last_seq:
        missing = (
            f"#{last_seq + 1}" if head_seq == last_seq + 1 else f"#{last_seq + 1}..#{head_seq}"
        )
        return ChainProblem(
            "deleted",
            last_seq + 1,
            None,
            f"event {missing} is missing at the end of the chain (deleted)",
        )
    if head_seq < last_seq:
        return ChainProblem(
            "head_mismatch",
            head_seq + 1,
            None,
            f"events after #{head_seq} were not written through the audit trail (chain head is at #{head_seq})",
        )
    if head_hash != last_hash:
        return ChainProblem(
            "head_mismatch",
            last_seq,
            None,
            f"event #{last_seq} does not match the chain head: the chain was rewritten",
        )
    return None
