"""Append-only JSON-lines storage of trial records.

Each finished trial is one line written with a single write() on a descriptor opened with
O_APPEND: concurrent writers (threads, processes) never interleave inside a line, and the file
is never rewritten. A crash can at worst leave a truncated last line, which readers skip (and
resume re-runs that unit).

A unit can have several lines: resume re-runs units whose trial ended in an infrastructure or
simulator error and appends the new record. Readers keep the latest line per key
(`read_records`), so a report counts each unit once, with its latest outcome.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

from evals.engine.runner.records import TrialRecord


class Sink(Protocol):
    def append(self, record: TrialRecord) -> None: ...

    def finished_keys(self) -> set[str]: ...


class JsonlSink:
    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._lock = threading.Lock()

    def append(self, record: TrialRecord) -> None:
        line = record.to_json_line()
        with self._lock:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(f"short write to {self.path}: {written} of {len(line)} bytes")
            if self.fsync:
                os.fsync(self._fd)

    def finished_keys(self) -> set[str]:
        """Units whose latest record counts (infrastructure and simulator errors re-run)."""
        return finished_keys(read_records(self.path))

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> JsonlSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class MemorySink:
    """Keeps records in a list (tests, small runs)."""

    def __init__(self) -> None:
        self.records: list[TrialRecord] = []
        self._lock = threading.Lock()

    def append(self, record: TrialRecord) -> None:
        with self._lock:
            self.records.append(record)

    def finished_keys(self) -> set[str]:
        with self._lock:
            return finished_keys(latest(self.records))


def finished_keys(records: Iterable[TrialRecord]) -> set[str]:
    """Keys of the units that need no re-run: their (latest) record is not an
    infrastructure or simulator error."""
    latest_counts: dict[str, bool] = {}
    for r in records:
        latest_counts[r.key] = not r.infrastructure
    return {key for key, counts in latest_counts.items() if counts}


def latest(records: Iterable[TrialRecord]) -> list[TrialRecord]:
    """The last record of each key, in the order of those last records."""
    last: dict[str, int] = {}
    items = list(records)
    for i, r in enumerate(items):
        last[r.key] = i
    return [r for i, r in enumerate(items) if last[r.key] == i]


_KEY_PREFIX = re.compile(rb'^\{"key":"([^"\\]*)"')


def _line_key(raw: bytes) -> str | None:
    m = _KEY_PREFIX.match(raw)
    if m is not None:
        return m.group(1).decode()
    try:
        d = json.loads(raw)
        return f"{d['domain']}/{d['task_id']}/{d['persona']}/{d['trial']}"
    except (ValueError, KeyError, TypeError):
        return None


def read_records(path: str | os.PathLike[str], *, dedupe: bool = True) -> Iterator[TrialRecord]:
    """Stream records from a JSON-lines file, skipping a truncated (unparseable) line.

    With `dedupe` (the default) only the latest line of each key is yielded: a first pass
    notes each key's last line number (memory: one small entry per unit, never the records),
    a second pass yields those lines. Lines appended after the first pass are ignored."""
    p = Path(path)
    if not p.exists():
        return
    last: dict[str, int] = {}
    count = 0
    if dedupe:
        with p.open("rb") as handle:
            for count, raw in enumerate(handle, start=1):
                if raw.endswith(b"\n") and (key := _line_key(raw)) is not None:
                    last[key] = count
    with p.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if dedupe and number > count:
                break
            if not raw.endswith(b"\n"):
                continue
            try:
                record = TrialRecord.from_dict(json.loads(raw))
            except (ValueError, KeyError):
                continue
            if dedupe and last.get(record.key) != number:
                continue
            yield record
