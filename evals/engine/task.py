"""Tasks: what a simulated customer wants, and what the right outcome is."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from evals.engine.messages import Message


class TaskKind(StrEnum):
    ACTION = "action"  # the right outcome changes the world
    REFUSAL = "refusal"  # refuse, change nothing, say so
    HANDOFF = "handoff"  # hand the case to a named human with the right category
    INFO = "info"  # answer a question (information communicated)


def kind_of(*, refused: bool, gold: tuple[GoldCall, ...], handoff: str) -> TaskKind:
    """A composed task's kind: a refusal when a part is refused and nothing is written, a
    hand-off when the gold hands the case to a human, else an action."""
    if refused and not gold:
        return TaskKind.REFUSAL
    return TaskKind.HANDOFF if handoff else TaskKind.ACTION


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


@dataclass(frozen=True, slots=True)
class Assertion:
    """A check on the final world, by name: `Domain.assertions[name](world, **arguments)`
    must return `expected`. `side` is "agent" (the backoffice's records) or "user" (the
    customer's own side of a dual-control world: `user:` tables)."""

    name: str
    arguments: Mapping[str, Any]
    side: str = "agent"
    expected: bool = True

    def describe(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.name}({args}) is {self.expected} ({self.side} side)"


# `assertions`, `lookup` and `nl_assertions` only count on tasks that carry them.
REWARD_COMPONENTS = (
    "state",
    "handoff",
    "communicate",
    "lookup",
    "policy",
    "assertions",
    "nl_assertions",
)


@dataclass(frozen=True)
class Task:
    """`gold`: the writes of a right solution, replayed on a fresh world to get the expected
    final state. `handoff_category`: a handoff with this category is required (handoffs are
    part of the state too). `communicate`: each entry is a tuple of alternatives, one of which
    must appear in the agent's messages (case-insensitive; numbers compared as numbers).
    `intents`: the distinct requests, in order (for omission/wrong-order classification).
    `notes`: what a reader of the results must know about the task's data (e.g. a published
    gold step our policy-correct tools refuse); shown by `python -m evals.engine list`.
    Dual control: `user_gold` are the customer's own writes a right outcome includes (with
    its own tools, on its side of the world), `assertions` checks on the final world (the
    user side's are how that side is judged). `nl_assertions`: statements about the
    conversation an LLM judge decides (`evals.engine.judge`); without a judge they are
    reported "not judged", never passed.
    `required_reads`: what the agent must have looked up for the outcome to count (component
    `lookup`), each entry a tuple of alternatives (READ calls; one succeeding call with those
    argument values satisfies it). A refusal task names the records the policy decides on,
    so an agent that refuses without reading them fails however right its words sound.
    `history`: the conversation before the trial (τ²'s message history): both sides see it
    as it happened (the customer: the words only) and the trial continues from it; its
    tool calls' effects are part of the task's world."""

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
    user_gold: tuple[GoldCall, ...] = ()
    assertions: tuple[Assertion, ...] = ()
    nl_assertions: tuple[str, ...] = ()
    required_reads: tuple[tuple[GoldCall, ...], ...] = ()
    history: tuple[Message, ...] = ()

    @property
    def judged_in_prose(self) -> tuple[str, ...]:
        """The natural-language assertions that count towards the reward."""
        return self.nl_assertions if "nl_assertions" in self.reward_basis else ()

    @property
    def needs_judge(self) -> bool:
        """Judged by nothing but natural-language assertions (and the policy): without a
        judge the task cannot be scored at all: a run without one reports its trials that pass
        every deterministic check `not judged` (never a pass), and the gate gives no verdict."""
        deterministic = set(self.reward_basis) - {"nl_assertions", "policy"}
        return bool(self.judged_in_prose) and not deterministic
