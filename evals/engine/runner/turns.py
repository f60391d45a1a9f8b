"""Per-message records: when each message of a trial was asked for, how long its participant
took, and the model calls behind it (tokens, cost, latency, retries), so a slow or costly
turn can be found in the trajectory.

The runner wraps the agent and the user simulator in `Timed`, which notes every `respond`
(its start as Unix time, its seconds, and the model calls its participant's accounting
gained meanwhile — LLM adapters keep a `TrialAccounting`; offline models make no call).
The orchestrator appends exactly one message per answered `respond`, so the k-th noted
`respond` of the agent produced the k-th assistant message after the trial's opening
history, and likewise for the customer; a `respond` that raised ended the trial and
produced none (`message` is None).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evals.engine.messages import Message, Role


@dataclass(frozen=True, slots=True)
class _Respond:
    started: float
    seconds: float
    calls: tuple[Any, ...]


class Timed:
    """`participant` with every `respond` noted; everything else passes through."""

    def __init__(self, participant: Any) -> None:
        self._participant = participant
        self.responds: list[_Respond] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._participant, name)

    def _records(self) -> Sequence[Any]:
        accounting = getattr(self._participant, "accounting", None)
        return getattr(accounting, "records", ())  # appended to only: a slice is safe

    def respond(self, *args: Any, **kwargs: Any) -> Any:
        before = len(self._records())
        started, clock = time.time(), time.perf_counter()
        try:
            return self._participant.respond(*args, **kwargs)
        finally:
            self.responds.append(
                _Respond(started, time.perf_counter() - clock, tuple(self._records()[before:]))
            )


def opening_length(task: Any) -> int:
    """How many messages precede a trial's first `respond`: the system message and the
    task's opening history (a greeting when it has none), as the orchestrator lays them."""
    return 1 + (len(tuple(getattr(task, "history", ()) or ())) or 1)


def _call(record: Any) -> dict[str, Any]:
    data: dict[str, Any] = record.to_dict()
    data.pop("role", None)
    return data


def message_records(
    messages: Sequence[Message], opening: int, agent: Timed, user: Timed
) -> list[dict[str, Any]]:
    """One entry per `respond` of either participant, in the order they were asked:
    {"message": index in `messages` or None, "actor", "at" (Unix seconds), "seconds",
    "tokens_in", "tokens_out", "cost_usd", "calls": [the model calls' records]}.
    `opening` is how many messages preceded the first `respond` (system and history)."""
    produced: dict[str, list[int]] = {"agent": [], "user": []}
    for index, message in enumerate(messages[opening:], start=opening):
        if message.role is Role.ASSISTANT:
            produced["agent"].append(index)
        elif message.role is Role.USER:
            produced["user"].append(index)
    out = []
    for actor, timed in (("agent", agent), ("user", user)):
        for n, r in enumerate(timed.responds):
            out.append(
                {
                    "message": produced[actor][n] if n < len(produced[actor]) else None,
                    "actor": actor,
                    "at": round(r.started, 3),
                    "seconds": round(r.seconds, 6),
                    "tokens_in": sum(c.tokens_in for c in r.calls),
                    "tokens_out": sum(c.tokens_out for c in r.calls),
                    "cost_usd": sum(c.cost for c in r.calls),
                    "calls": [_call(c) for c in r.calls],
                }
            )
    # In conversation order: by the message produced (a respond that raised comes last).
    out.sort(key=lambda e: len(messages) if e["message"] is None else e["message"])
    return out
