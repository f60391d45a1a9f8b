"""Walk the audit chain and name the first event that was altered, deleted or reordered.

The table is streamed in seq order as value tuples by one query read in chunks
(`QuerySet.iterator(chunk_size=...)`), so memory stays flat whatever the size.

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
import itertools
import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import connections
from django.db.models import Max, TextField
from django.db.models.functions import Cast

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


# The timestamp and the two JSON columns are read as the database's text and decoded in the
# hashing loop: the ORM's per-value converters (datetimes, JSONField) cost 2-4 times the
# verify's CPU, past the bench's 10 s for a million events (docs/performance.md).
_AS_TEXT = frozenset({"occurred_at", "before", "after"})
_COLUMNS = [Cast(name, output_field=TextField()) if name in _AS_TEXT else name for name in _FIELDS]


def _utc_text(text: str) -> str:
    """canonical_time() text from a UTC timestamp as the database prints it: PostgreSQL
    'YYYY-MM-DD HH:MM:SS[.f]+00' (trailing zeros of the fraction dropped), SQLite
    'YYYY-MM-DD HH:MM:SS[.ffffff]'. Anything else is parsed."""
    if text.endswith("+00"):
        text = text[:-3]
    if len(text) == 19 and text[10] == " ":
        return f"{text[:10]}T{text[11:]}.000000+00:00"
    if 20 < len(text) <= 26 and text[10] == " " and text[19] == ".":
        return f"{text[:10]}T{text[11:19]}.{text[20:]:0<6}+00:00"
    parsed = dt.datetime.fromisoformat(text)
    return canonical_time(parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC))


def stream_rows(
    chunk_size: int = 5000, using: str = "default", *, lo: int = 0, hi: int | None = None
) -> Iterator[list[tuple[Any, ...]]]:
    """Chunks of rows (id, *CONTENT_FIELDS, prev_hash, hash) with lo < seq <= hi, in seq
    order, as value tuples (no model instances); occurred_at, before and after as text.

    One query, read chunk_size rows at a time (a server-side cursor on PostgreSQL, chunked
    fetches on SQLite), so memory stays flat whatever the length of the chain."""
    events = AuditEvent.objects.using(using).filter(seq__gt=lo)
    if hi is not None:
        events = events.filter(seq__lte=hi)
    rows = events.order_by("seq").values_list(*_COLUMNS).iterator(chunk_size=chunk_size)
    while chunk := list(itertools.islice(rows, chunk_size)):
        yield chunk


def _describe(row: tuple[Any, ...]) -> str:
    return f"event #{row[_SEQ]} (id {row[0]}, {row[_ACTION]})"


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
                        "occurred_at": _utc_text(at),
                        "actor_type": row[3],
                        "actor_id": row[4],
                        "actor_label": row[5],
                        "action": row[6],
                        "target_type": row[7],
                        "target_id": row[8],
                        "before": None if before is None else loads(before),
                        "after": None if after is None else loads(after),
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
