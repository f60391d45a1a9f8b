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
import hashlib
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import connections
from django.db.models import Max

from identity.audit import CONTENT_FIELDS, GENESIS_HASH, canonical_bytes, canonical_time
from identity.models import AuditChainHead, AuditEvent

_FIELDS = ("id", *CONTENT_FIELDS, "prev_hash", "hash")
_SEQ = 1
_ACTION = _FIELDS.index("action")
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


def _sqlite_time(text: str) -> str:
    """Django stores aware datetimes on SQLite as naive UTC text 'YYYY-MM-DD HH:MM:SS[.ffffff]';
    turn it into canonical_time() text without building a datetime (this is the hot loop).
    Text that is already canonical (PostgreSQL's to_char) passes through."""
    if len(text) == 32 and text[10] == "T":
        return text
    if len(text) == 26 and text[10] == " ":
        return f"{text[:10]}T{text[11:]}+00:00"
    if len(text) == 19 and text[10] == " ":
        return f"{text[:10]}T{text[11:]}.000000+00:00"
    parsed = dt.datetime.fromisoformat(text)
    return canonical_time(parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC))


def stream_rows(
    chunk_size: int = 5000, using: str = "default", *, lo: int = 0, hi: int | None = None
) -> Iterator[list[tuple[Any, ...]]]:
    """Chunks of raw rows (id, *CONTENT_FIELDS, prev_hash, hash) in seq order.

    Raw SQL on purpose: Django's per-value converters cost more than the hashing, and the
    loop over rows runs a million times. occurred_at is read as text (see time_column)."""
    connection = connections[using]
    quote = connection.ops.quote_name
    time_column = {
        # Text, so the driver's datetime converter does not run; _sqlite_time() finishes it.
        "sqlite": f"{quote('occurred_at')} || ''",
        # canonical_time() text made by the server: no datetime objects in the hot loop.
        "postgresql": (
            f"to_char({quote('occurred_at')} AT TIME ZONE 'UTC', "
            '\'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"\')'
        ),
    }.get(connection.vendor, quote("occurred_at"))
    columns = ", ".join(time_column if name == "occurred_at" else quote(name) for name in _FIELDS)
    table = quote(AuditEvent._meta.db_table)
    if hi is None:
        hi = AuditEvent.objects.using(using).aggregate(top=Max("seq"))["top"] or 0
    # Fixed windows of seq values rather than "seq > last LIMIT n": each query touches at
    # most chunk_size rows whatever the planner's statistics say (after a bulk load, a stale
    # estimate made PostgreSQL sort everything above the cursor for every chunk). A gap
    # gives a short window; an empty one jumps to the next stored seq.
    # Identifiers come from the model, quoted by the backend; values are parameters.
    sql = f"SELECT {columns} FROM {table} WHERE seq > %s AND seq <= %s ORDER BY seq"  # noqa: S608
    next_sql = f"SELECT MIN(seq) FROM {table} WHERE seq > %s"  # noqa: S608
    start = lo
    while start < hi:
        end = min(start + chunk_size, hi)
        with connection.cursor() as cursor:
            cursor.execute(sql, [start, end])
            rows = cursor.fetchall()
            if not rows:
                cursor.execute(next_sql, [end])
                following = cursor.fetchone()[0]
                if following is None:
                    return
                start = max(end, following - 1)
                continue
        yield rows
        start = end


def _describe(row: tuple[Any, ...]) -> str:
    return f"event #{row[_SEQ]} (id {row[0]}, {row[_ACTION]})"


def _decoded(value: Any) -> Any:
    return orjson.loads(value) if isinstance(value, str | bytes) else value


@dataclass(frozen=True)
class _Range:
    checked: int
    first_prev: str | None  # prev_hash of the range's first row, checked by the caller
    first_seq: int | None
    last_seq: int
    last_hash: str
    problem: ChainProblem | None


def _verify_range(
    lo: int, hi: int | None, start_prev: str | None, chunk_size: int, using: str
) -> _Range:
    """Verify events lo < seq <= hi. With start_prev None (a later range in a parallel
    run), the first row's prev_hash is taken on trust and returned for the caller to check
    against the previous range's last hash."""
    expected_seq = lo + 1
    prev_hash = start_prev or ""
    first_prev: str | None = None
    first_seq: int | None = None
    checked = 0
    suspect: tuple[Any, ...] | None = None  # broke the link; judged by the row after it
    sha256, dumps, loads = hashlib.sha256, canonical_bytes, orjson.loads

    def done(problem: ChainProblem | None) -> _Range:
        return _Range(checked, first_prev, first_seq, expected_seq - 1, prev_hash, problem)

    for rows in stream_rows(chunk_size, using, lo=lo, hi=hi):
        for row in rows:
            if suspect is not None:
                return done(_judge_link(suspect, row, prev_hash))
            seq = row[1]
            if first_seq is None:
                first_seq, first_prev = seq, row[13]
                if start_prev is None:
                    prev_hash = row[13]
            if seq != expected_seq:
                missing = (
                    f"#{expected_seq}"
                    if seq == expected_seq + 1
                    else f"#{expected_seq}..#{seq - 1}"
                )
                problem = ChainProblem(
                    "deleted",
                    expected_seq,
                    None,
                    f"event {missing} is missing (deleted); the chain resumes at {_describe(row)}",
                )
                return done(problem)
            if row[13] != prev_hash:
                suspect = row
                continue
            # The same content as identity.audit.canonical_values, built inline: this loop is
            # the whole cost of verifying a million events.
            at, before, after, ip = row[2], row[9], row[10], row[12]
            digest = sha256(prev_hash.encode("ascii"))
            digest.update(
                dumps(
                    {
                        "seq": seq,
                        "occurred_at": _sqlite_time(at)
                        if isinstance(at, str)
                        else canonical_time(at),
                        "actor_type": row[3],
                        "actor_id": row[4],
                        "actor_label": row[5],
                        "action": row[6],
                        "target_type": row[7],
                        "target_id": row[8],
                        "before": loads(before) if isinstance(before, str) else _decoded(before),
                        "after": loads(after) if isinstance(after, str) else _decoded(after),
                        "request_id": row[11],
                        "ip": ip if ip is None or isinstance(ip, str) else str(ip),
                    }
                )
            )
            if digest.hexdigest() != row[14]:
                problem = ChainProblem(
                    "altered",
                    seq,
                    row[0],
                    f"{_describe(row)} was altered: its content no longer matches its hash",
                )
                return done(problem)
            prev_hash = row[14]
            expected_seq += 1
            checked += 1
    if suspect is not None:
        return done(_judge_link(suspect, _row_after(suspect[1], using), prev_hash))
    return done(None)


def _range_worker(args: tuple[int, int | None, str | None, int, str]) -> _Range:
    return _verify_range(*args)


def verify_chain(
    *, chunk_size: int = 5000, using: str = "default", workers: int = 1, processes: bool = True
) -> VerifyResult:
    """Verify the whole chain. With workers > 1 the seq range is split into that many
    contiguous parts, checked by as many processes (hashing is CPU-bound; each process
    streams its own part) and stitched together here. processes=False checks the parts one
    after another in this process (the same stitching, for tests)."""
    if workers <= 1:
        only = _verify_range(0, None, GENESIS_HASH, chunk_size, using)
        problem = only.problem or _check_head(only.last_seq, only.last_hash, using)
        return VerifyResult(only.checked, only.last_seq, only.last_hash, problem)
    top = AuditEvent.objects.using(using).aggregate(top=Max("seq"))["top"] or 0
    step = max(1, -(-top // workers))
    bounds = [(lo, min(lo + step, top)) for lo in range(0, top, step)] or [(0, 0)]
    jobs = [
        (lo, hi, GENESIS_HASH if index == 0 else None, chunk_size, using)
        for index, (lo, hi) in enumerate(bounds)
    ]
    if processes:
        # Children must open their own connections: close ours so none is shared by fork.
        connections.close_all()
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(len(jobs), mp_context=context) as pool:
            parts = list(pool.map(_range_worker, jobs))
    else:
        parts = [_range_worker(job) for job in jobs]
    checked, last_seq, last_hash = 0, 0, GENESIS_HASH
    for index, ((lo, hi), part) in enumerate(zip(bounds, parts, strict=True)):
        if index and part.first_seq == lo + 1 and part.first_prev != last_hash:
            first = _row_after(lo, using)
            assert first is not None
            problem = _judge_link(first, _row_after(lo + 1, using), last_hash)
            return VerifyResult(checked, last_seq, last_hash, problem)
        if part.problem is not None:
            return VerifyResult(checked + part.checked, part.last_seq, part.last_hash, part.problem)
        if part.last_seq != hi:
            missing = part.last_seq + 1
            problem = ChainProblem(
                "deleted", missing, None, f"event #{missing} is missing (deleted)"
            )
            return VerifyResult(checked + part.checked, part.last_seq, part.last_hash, problem)
        checked, last_seq, last_hash = checked + part.checked, part.last_seq, part.last_hash
    return VerifyResult(checked, last_seq, last_hash, _check_head(last_seq, last_hash, using))


def _row_after(seq: int, using: str) -> tuple[Any, ...] | None:
    for rows in stream_rows(1, using, lo=seq, hi=seq + 1):
        return rows[0]
    return None


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
