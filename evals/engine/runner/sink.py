"""Append-only JSON-lines storage of trial records.

Each finished trial is one line written with a single write() on a descriptor opened with
O_APPEND: concurrent writers (threads, processes) never interleave inside a line, and the file
is never rewritten. A crash can at worst leave a truncated last line, which readers skip (and
resume re-runs that unit).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
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
        return {r.key for r in read_records(self.path)}

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
        return {r.key for r in self.records}


def read_records(path: str | os.PathLike[str]) -> Iterator[TrialRecord]:
    """Stream records from a JSON-lines file, skipping a truncated (unparseable) line."""
    p = Path(path)
    if not p.exists():
        return
    with p.open("rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                continue
            try:
                yield TrialRecord.from_dict(json.loads(raw))
            except (ValueError, KeyError):
                continue
