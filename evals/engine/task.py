"""Tasks: what a simulated customer wants, and what the right outcome is."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class TaskKind(StrEnum):
    ACTION = "action"  # the right outcome changes the world
    REFUSAL = "refusal"  # refuse, change nothing, say so
    HANDOFF = "handoff"  # hand the case to a named human with the right category
    INFO = "info"  # answer a question (information communicated)


@dataclass(frozen=True, slots=True)
class GoldCall:
    """One WRITE of the gold solution: tool name and validated arguments."""

    name: str
    arguments: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}

    def key(self) -> str:
        return self.name + json.dumps(self.arguments, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Scenario:
    """What the customer knows and wants: the user simulator's own instructions.
    The text fields follow τ²-bench (for LLM users); `data` is the same in structured form
    for a domain's scripted user. The agent never sees any of it."""

    reason: str
    known_info: str = ""
    unknown_info: str = ""
    instructions: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)

    def prompt(self) -> str:
        parts = [f"Reason for contacting support: {self.reason}"]
        if self.known_info:
            parts.append(f"What you know: {self.known_info}")
        if self.unknown_info:
            parts.append(f"What you do not know: {self.unknown_info}")
        if self.instructions:
            parts.append(self.instructions)
        return "\n".join(parts)


REWARD_COMPONENTS = ("state", "handoff", "communicate", "policy")


@dataclass(frozen=True)
class Task:
    """`gold`: the writes of a right solution, replayed on a fresh world to get the expected
    final state. `handoff_category`: a handoff with this category is required (handoffs are
    part of the state too). `communicate`: each entry is a tuple of alternatives, one of which
    must appear in the agent's messages (case-insensitive; numbers compared as numbers).
    `intents`: the distinct requests, in order (for omission/wrong-order classification).
    `notes`: what a reader of the results must know about the task's data (e.g. a published
    gold step our policy-correct tools refuse); shown by `python -m evals.engine list`."""

    id: str
    domain: str
    kind: TaskKind
    scenario: Scenario
    gold: tuple[GoldCall, ...]
    world_seed: int = 0
    handoff_category: str = ""
    communicate: tuple[tuple[str, ...], ...] = ()
    intents: tuple[str, ...] = ()
    splits: tuple[str, ...] = ("all",)
    reward_basis: tuple[str, ...] = REWARD_COMPONENTS
    notes: tuple[str, ...] = ()
