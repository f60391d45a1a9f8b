"""Response cache, OFF by default. When on, the key includes the trial id and the role, so
a repeated trial (trial 2 of task T) is never served trial 1's answer — that would fake
pass^k — while a resumed or replayed trial gets exactly the answers it got before."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol


def cache_key(
    *,
    trial_id: str,
    role: str,
    model: str,
    api_base: str | None,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None,
    params: Mapping[str, Any],
) -> str:
    payload = [trial_id, role, model, api_base or "", messages, tools or [], params]
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache(Protocol):
    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, value: dict[str, Any]) -> None: ...


class MemoryCache:
    def __init__(self) -> None:
        self._data: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, value: dict[str, Any]) -> None:
        with self._lock:
            self._data[key] = value

    def __len__(self) -> int:
        return len(self._data)


class DiskCache:
    """One JSON file per key under `root/<2 hex>/`; written atomically (temp + rename) so a
    crash never leaves a half-written answer for a resumed run to read."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = json.loads(self._path(key).read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return data

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(value))
        tmp.replace(path)
