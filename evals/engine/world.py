"""World: the state of one trial.

A world is a set of tables of *immutable* records (frozen dataclasses, tuples inside) plus the
backoffice effects the agent can cause (handoffs to named humans, sandbox refund requests,
notifications). Tools change a world by replacing records, never by mutating them, so a fresh
copy of a pristine world is a shallow copy of its tables: cheap enough to build one per trial
(the runner does) without sharing anything between trials.

`session` holds what the conversation established (which customer was verified); it guides the
policy guard but is not part of the state compared by the oracle.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from evals.engine.errors import ToolError


@dataclass(frozen=True, slots=True)
class Handoff:
    """A conversation handed to a named human: `category` routes it, `summary` is free text
    for the human and is left out of the compared state."""

    category: str
    assignee: str
    customer_id: str
    reference: str
    summary: str

    canonical_exclude: ClassVar[frozenset[str]] = frozenset({"summary"})


@dataclass(frozen=True, slots=True)
class RefundRequest:
    """A refund the agent asked for; it stays in the sandbox until a named human approves it
    (state from payments_sandbox.domain.RefundState). `reason` is free text, not compared."""

    reference: str
    amount: int
    currency: str
    state: str
    reason: str

    canonical_exclude: ClassVar[frozenset[str]] = frozenset({"reason"})


@dataclass(frozen=True, slots=True)
class Notification:
    customer_id: str
    kind: str
    reference: str


@dataclass
class Session:
    verified_customer_id: str = ""


@dataclass
class Backoffice:
    handoffs: list[Handoff] = field(default_factory=list)
    refund_requests: list[RefundRequest] = field(default_factory=list)
    notifications: list[Notification] = field(default_factory=list)

    def copy(self) -> Backoffice:
        return Backoffice(list(self.handoffs), list(self.refund_requests), list(self.notifications))


_FIELDS: dict[type, tuple[str, ...]] = {}

# Dual control: tables whose name starts with this prefix are the *customer's* side of the
# world (their device, their inbox), changed only by the customer's own tools. The agent's
# state (`canonical`, `state_hash`, compared with the gold replay) leaves them out; the
# oracle judges them with the task's user-side assertions.
USER_SIDE = "user:"


def user_side(table: str) -> bool:
    return table.startswith(USER_SIDE)


def canonical(value: Any) -> Any:
    """JSON-compatible form: dataclasses become dicts of their compared fields, tuples lists."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    cls = type(value)
    names = _FIELDS.get(cls)
    if names is None and dataclasses.is_dataclass(value):
        exclude: frozenset[str] = getattr(cls, "canonical_exclude", frozenset())
        names = tuple(f.name for f in dataclasses.fields(value) if f.name not in exclude)
        _FIELDS[cls] = names
    if names is not None:
        return {n: canonical(getattr(value, n)) for n in names}
    if isinstance(value, Mapping):
        return {str(k): canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    raise TypeError(f"Cannot canonicalise {cls.__name__}")


class World:
    """Base world. Subclasses add typed accessors and build themselves from a seed."""

    def __init__(
        self,
        tables: dict[str, dict[str, Any]],
        backoffice: Backoffice | None = None,
        session: Session | None = None,
    ) -> None:
        self.tables = tables
        self.backoffice = backoffice or Backoffice()
        self.session = session or Session()
        # Canonical JSON of the pristine records, by identity, shared read-only by every copy:
        # hashing a trial's final world then only serialises the records it replaced.
        self._row_cache: dict[int, tuple[Any, bytes]] | None = None

    def record(self, table: str, key: str, missing: str) -> Any:
        """The record `key` of `table`, for a tool: a ToolError saying `missing` (written for
        the model: what was asked and what an id looks like) when there is none."""
        try:
            return self.tables[table][key]
        except KeyError:
            raise ToolError(missing) from None

    def records_where(self, table: str, **fields: Any) -> list[Any]:
        """The records of `table` whose `fields` have these values, in the table's order."""
        return [
            r
            for r in self.tables[table].values()
            if all(getattr(r, k) == v for k, v in fields.items())
        ]

    def _rows_json(self) -> dict[int, tuple[Any, bytes]]:
        return {
            id(record): (record, _dumps(canonical(record)))
            for rows in self.tables.values()
            for record in rows.values()
        }

    def copy(self) -> World:
        """A fresh, independent world with the same state (records are immutable, so the
        tables are copied one level deep) and an empty session."""
        if self._row_cache is None:
            self._row_cache = self._rows_json()
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.tables = {name: dict(rows) for name, rows in self.tables.items()}
        clone.backoffice = self.backoffice.copy()
        clone.session = Session()
        return clone

    def canonical(self) -> dict[str, Any]:
        """Compared state. Backoffice effects are compared as multisets (sorted): two
        requests handled in either order leave the same state."""
        return {
            "tables": {
                name: canonical(rows) for name, rows in self.tables.items() if not user_side(name)
            },
            "backoffice": self.canonical_backoffice(),
        }

    def user_canonical(self) -> dict[str, Any]:
        """The customer's side of the world (tables named `user:...`), for reports."""
        return {name: canonical(rows) for name, rows in self.tables.items() if user_side(name)}

    def state_hash(self) -> str:
        """sha256 over the canonical JSON of every agent-side record (tables and keys in
        sorted order) and of the backoffice effects; equal states give equal hashes."""
        digest = hashlib.sha256()
        cache = self._row_cache or {}
        for name in sorted(self.tables):
            if user_side(name):
                continue
            rows = self.tables[name]
            digest.update(b"\x00T" + name.encode())
            for key in sorted(rows):
                record = rows[key]
                hit = cache.get(id(record))
                data = hit[1] if hit is not None and hit[0] is record else _dumps(canonical(record))
                digest.update(b"\x00K" + key.encode() + b"\x00" + data)
        digest.update(b"\x00B" + _dumps(self.canonical_backoffice()))
        return digest.hexdigest()

    def canonical_backoffice(self) -> dict[str, Any]:
        return {
            "handoffs": _multiset(self.backoffice.handoffs),
            "refund_requests": _multiset(self.backoffice.refund_requests),
            "notifications": _multiset(self.backoffice.notifications),
        }


def _multiset(records: list[Any]) -> list[Any]:
    items = canonical(records)
    return sorted(items, key=lambda x: json.dumps(x, sort_keys=True, ensure_ascii=False))


def state_hash(canonical_state: Mapping[str, Any]) -> str:
    """sha256 of a canonical state's JSON (for worlds that build their canonical form whole)."""
    return hashlib.sha256(_dumps(canonical_state)).hexdigest()


def _dumps(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _flatten(value: Any, path: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(v, f"{path}.{k}" if path else str(k), out)
    elif isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
        for i, v in enumerate(value):
            _flatten(v, f"{path}[{i}]", out)
    else:
        out[path] = value


def _flatten_unequal(x: Any, y: Any, path: str, a: dict[str, Any], b: dict[str, Any]) -> None:
    """`_flatten` of both sides, skipping the subtrees that are equal (they add no line)."""
    if x == y:
        return
    if isinstance(x, dict) and x and isinstance(y, dict) and y:
        for k in x.keys() | y.keys():
            sub = f"{path}.{k}" if path else str(k)
            if k not in y:
                _flatten(x[k], sub, a)
            elif k not in x:
                _flatten(y[k], sub, b)
            else:
                _flatten_unequal(x[k], y[k], sub, a, b)
        return
    _flatten(x, path, a)
    _flatten(y, path, b)


def diff(expected: Mapping[str, Any], actual: Mapping[str, Any], limit: int = 20) -> list[str]:
    """Readable differences between two canonical states, one line per changed leaf:
    `tables.orders.#W1.status: expected 'cancelled', got 'pending'`."""
    a: dict[str, Any] = {}
    b: dict[str, Any] = {}
    _flatten_unequal(dict(expected), dict(actual), "", a, b)
    return leaf_differences(a, b, limit)


def leaf_differences(a: Mapping[str, Any], b: Mapping[str, Any], limit: int) -> list[str]:
    """The lines of `diff` for two flattened states (path -> leaf), in path order."""
    lines: list[str] = []
    for key in sorted(set(a) | set(b)):
        if key not in b:
            lines.append(f"{key}: expected {a[key]!r}, missing")
        elif key not in a:
            lines.append(f"{key}: unexpected {b[key]!r}")
        elif a[key] != b[key]:
            lines.append(f"{key}: expected {a[key]!r}, got {b[key]!r}")
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more differences"]
    return lines
