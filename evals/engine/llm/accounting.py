"""Per-trial accounting of LLM calls: one `CallRecord` per call, totals per role.

A `TrialAccounting` belongs to one trial; the agent and the user simulator of that trial
append to it from the trial's thread (and the runner may read it from another), so appends
take a lock. Records are small frozen slots objects: no payloads, only numbers and names.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class CallRole(StrEnum):
    AGENT = "agent"
    USER = "user"


class FailureClass(StrEnum):
    """Who a failed call is charged to. `infrastructure`: the provider, the network or the
    harness configuration (never counted against the agent); `agent`: the model under test
    produced it (context window exceeded, content policy, a request the provider rejects)."""

    NONE = ""
    INFRASTRUCTURE = "infrastructure"
    AGENT = "agent"


@dataclass(frozen=True, slots=True)
class CallRecord:
    role: CallRole
    model: str  # as requested, e.g. "openai/my-agent"
    resolved_model: str  # as the provider reported it answering ("gpt-4.1-2025-04-14")
    provider: str
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0  # USD, from LiteLLM's price table; 0.0 when unknown
    cost_known: bool = False
    latency_s: float = 0.0  # wall time of the whole call, retries and back-off included
    retries: int = 0
    cached: bool = False
    malformed_tool_calls: int = 0
    error_class: str = ""  # the exception class name of a failed call
    failure: FailureClass = FailureClass.NONE
    at: float = field(default_factory=time.time)  # when the call ended (Unix seconds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role.value,
            "model": self.model,
            "resolved_model": self.resolved_model,
            "provider": self.provider,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": self.cost,
            "cost_known": self.cost_known,
            "latency_s": round(self.latency_s, 6),
            "retries": self.retries,
            "cached": self.cached,
            "malformed_tool_calls": self.malformed_tool_calls,
            "error_class": self.error_class,
            "failure": self.failure.value,
            "at": round(self.at, 3),
        }


@dataclass
class RoleTotals:
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    cost_unknown_calls: int = 0
    latency_s: float = 0.0
    retries: int = 0
    cached: int = 0
    errors: int = 0
    infrastructure_errors: int = 0
    models: set[str] = field(default_factory=set)


@dataclass
class TrialAccounting:
    """Every LLM call of one trial. `trial_id` also namespaces the response cache."""

    trial_id: str
    records: list[CallRecord] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self.records.append(record)

    def totals(self) -> dict[CallRole, RoleTotals]:
        out: dict[CallRole, RoleTotals] = {}
        with self._lock:
            records = list(self.records)
        for r in records:
            t = out.setdefault(r.role, RoleTotals())
            t.calls += 1
            t.tokens_in += r.tokens_in
            t.tokens_out += r.tokens_out
            t.cost += r.cost
            t.cost_unknown_calls += 0 if (r.cost_known or r.cached or r.error_class) else 1
            t.latency_s += r.latency_s
            t.retries += r.retries
            t.cached += int(r.cached)
            t.errors += int(bool(r.error_class))
            t.infrastructure_errors += int(r.failure is FailureClass.INFRASTRUCTURE)
            if r.resolved_model:
                t.models.add(r.resolved_model)
        return out

    def usage(self) -> dict[str, float]:
        """Flat numbers for `Trajectory.usage`: `<role>.<field>` (tokens, cost, retries...)."""
        flat: dict[str, float] = {}
        for role, t in self.totals().items():
            for name in (
                "calls",
                "tokens_in",
                "tokens_out",
                "cost",
                "cost_unknown_calls",
                "latency_s",
                "retries",
                "cached",
                "errors",
                "infrastructure_errors",
            ):
                flat[f"{role.value}.{name}"] = getattr(t, name)
        return flat

    def resolved_models(self, role: CallRole) -> list[str]:
        """The models that actually answered for `role` (the user model is part of the
        measuring instrument, so reports carry it as resolved)."""
        t = self.totals().get(role)
        return sorted(t.models) if t else []
