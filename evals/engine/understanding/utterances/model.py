"""What a reading is made of: acts, entities, and the hook a domain uses to add its own
entity patterns."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class ActKind(StrEnum):
    """What one part of an agent's message does to the customer."""

    GREETING = "greeting"  # opens, or asks what the customer wants ("how can I help?")
    CLOSING = "closing"  # anything else? / goodbye
    VERIFY = "verify"  # asks the customer to prove who they are; `slots` = identity fields
    ASK = "ask"  # asks for an identifier or a detail; `slots` = what it asks for
    CHOICE = "choice"  # offers options; `options`, and `slots` when the question names one
    CONFIRM = "confirm"  # asks the go-ahead for `action` (entities: what it would act on)
    CHECK = "check"  # asks the customer to confirm a fact, no action at stake
    DONE = "done"  # states that `action` was carried out
    REFUSE = "refuse"  # states that `action` cannot or will not be done; `reason` if given
    NOT_FOUND = "not_found"  # could not find what the customer gave; `slots` = what
    HANDOFF = "handoff"  # transfers / escalates to a human
    USER_STEP = "user_step"  # asks the customer to act on their own side; `action`, `slots`
    EXPLAIN = "explain"  # says why it needs something
    INFORM = "inform"  # states a fact or a status (balance, order state, totals)
    UNCLEAR = "unclear"  # nothing the customer can act on


@dataclass(frozen=True, slots=True)
class Entity:
    """A value found in the text: `kind` (order_id, money, date, ...), `value` normalised
    (money "20.00 USD", dates ISO "2025-03-14" or "03-14", durations ISO "P3M"), `text` as
    written and its span in the reading's normalised text."""

    kind: str
    value: str
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Act:
    kind: ActKind
    action: str = ""
    slots: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    entities: tuple[Entity, ...] = ()
    reason: str = ""
    text: str = ""

    def values(self, kind: str) -> tuple[str, ...]:
        """The normalised values of this act's entities of `kind`, in order, without repeats."""
        return _values(self.entities, kind)


@dataclass(frozen=True, slots=True)
class Reading:
    """Everything the reader found in one agent message, acts in the order they appear."""

    text: str
    acts: tuple[Act, ...]
    entities: tuple[Entity, ...]

    @property
    def kinds(self) -> tuple[ActKind, ...]:
        return tuple(a.kind for a in self.acts)

    def has(self, kind: ActKind) -> bool:
        return any(a.kind is kind for a in self.acts)

    def first(self, kind: ActKind) -> Act | None:
        return next((a for a in self.acts if a.kind is kind), None)

    def of(self, kind: ActKind) -> tuple[Act, ...]:
        return tuple(a for a in self.acts if a.kind is kind)

    def values(self, kind: str) -> tuple[str, ...]:
        """The normalised values of the message's entities of `kind`."""
        return _values(self.entities, kind)


def _values(entities: Iterable[Entity], kind: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(e.value for e in entities if e.kind == kind))


@dataclass(frozen=True)
class EntityPattern:
    """A domain's own entity: `pattern` finds it (the last group that took part in the match,
    else the whole match) and `normalize` turns what matched into the value. Domain patterns win
    over the core ones where they overlap."""

    kind: str
    pattern: re.Pattern[str]
    normalize: Callable[[str], str] = field(default=str.strip)

    @classmethod
    def terms(cls, kind: str, names: Mapping[str, Iterable[str]]) -> EntityPattern:
        """Names from a closed list (products, plans): `names` maps each value to the ways it
        is written; matching ignores case, and Latin names match whole words only."""
        surface: dict[str, str] = {}
        for value, spellings in names.items():
            for s in (value, *spellings):
                surface[s.lower()] = value
        ordered = sorted(surface, key=len, reverse=True)
        parts = [
            re.escape(s)
            if not s[:1].isascii()
            else rf"(?<![A-Za-z0-9]){re.escape(s)}(?![A-Za-z0-9])"
            for s in ordered
        ]
        pattern = re.compile("(" + "|".join(parts) + ")", re.IGNORECASE)
        return cls(kind, pattern, lambda text: surface.get(text.lower(), text.lower()))
