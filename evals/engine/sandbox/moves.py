"""The persona's own moves, apart from what the domain says: how long a customer waits and how
often it answers the same question (patience), and what it asks of the agent's message —
a read-back after "done", "Why not?" after a bare refusal, a push-back, a worry — with what
answers each (docs/golive.md, "Persona mechanisms"). `ScriptedUserBase` makes the moves."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evals.engine.messages import Signal
from evals.engine.persona import Emotion, Level, Persona
from evals.engine.understanding.utterances import ActKind, Entity, Reading

# Agent turns a customer waits for: by impatience, less by urgency (the presets wait as long
# as before urgency acted: "impatient" 6, "angry-urgent" 9). Turns in which the agent answers
# the customer's own move (a read-back, a why, a worry) are not counted against it.
PATIENCE = {Level.LOW: 16, Level.MEDIUM: 11, Level.HIGH: 8}
URGENCY_CUT = {Level.LOW: 0, Level.MEDIUM: 1, Level.HIGH: 2}
# Times the same question is put up with: by impatience, shifted by the emotion family and
# politeness (never below 1).
REPEAT_TOLERANCE = {Level.LOW: 3, Level.MEDIUM: 2, Level.HIGH: 1}
HOSTILE = (Emotion.ANGER, Emotion.FRUSTRATION)
TOLERANT = (Emotion.SADNESS, Emotion.ANXIETY)
# Chance of a read-back after "done", by trust; of "Why not?" after a bare refusal, by
# skepticism.
READ_BACK_P = {Level.LOW: 1.0, Level.MEDIUM: 0.25, Level.HIGH: 0.0}
WHY_NOT_P = {Level.LOW: 0.0, Level.MEDIUM: 0.5, Level.HIGH: 1.0}
# Entities a read-back must restate: the values a customer can check (amounts, the ids it
# knows, plans, durations, addresses), not internal item numbers or its own identity.
CHECKABLE = frozenset({"money", "plan", "duration", "address"})
# What answers a worry: the agent explains, restates the proposal, or states what it did.
REASSURING = frozenset(
    {ActKind.EXPLAIN, ActKind.CONFIRM, ActKind.DONE, ActKind.INFORM, ActKind.HANDOFF}
)
# What answers a push-back: the refusal held (with or without its reason), an explanation,
# or the agent giving in (a proposal or a "done": the guard and the oracle judge those).
HEARD = frozenset({ActKind.REFUSE, ActKind.EXPLAIN, ActKind.CONFIRM, ActKind.DONE, ActKind.HANDOFF})


@dataclass
class Waiting:
    """A move waiting for the agent's answer: which move, the domain's reply held meanwhile
    (None when the domain's own reply asked the question: it then answers the agent's next
    message itself), what a read-back must restate, and how many times it was asked."""

    move: str
    held: tuple[str, Signal] | None
    expected: frozenset[str] = frozenset()
    asks: int = 1


def turn_budget(persona: Persona) -> int:
    """Agent turns a customer waits for before walking away (its own moves' answers aside)."""
    return PATIENCE[persona.impatience] - URGENCY_CUT[persona.urgency]


def repeat_tolerance(persona: Persona) -> int:
    """Times a customer answers the same question before walking away."""
    shift = 0
    if persona.emotion in HOSTILE and persona.politeness is Level.LOW:
        shift = -1
    elif persona.emotion in TOLERANT:
        shift = 1
    return max(1, REPEAT_TOLERANCE[persona.impatience] + shift)


def pushes_back(persona: Persona) -> bool:
    """An angry or frustrated customer pushes back on a refusal when impolite, or when
    medium-polite and the emotion is intense."""
    if persona.emotion not in HOSTILE:
        return False
    return persona.politeness is Level.LOW or (
        persona.politeness is Level.MEDIUM and persona.emotion_intensity is Level.HIGH
    )


def checkable(entities: Iterable[Entity]) -> frozenset[str]:
    """The values among `entities` a customer can check in a read-back."""
    return frozenset(
        e.value
        for e in entities
        if e.kind in CHECKABLE or (e.kind.endswith("_id") and e.kind != "item_id")
    )


def proposed(reading: Reading) -> frozenset[str]:
    """What a go-ahead question proposes: its acts' values, else those of the message that no
    other act (a status, a refusal) claims."""
    confirms = reading.of(ActKind.CONFIRM)
    own = checkable(e for a in confirms for e in a.entities)
    if own:
        return own
    claimed = {
        (e.start, e.end) for a in reading.acts if a.kind is not ActKind.CONFIRM for e in a.entities
    }
    return checkable(e for e in reading.entities if (e.start, e.end) not in claimed)


def restates(reading: Reading, expected: frozenset[str]) -> bool:
    """Whether an answer to a read-back restates the change: at least half (rounded up) of
    the values the "done" named, or when it named none, of the proposal the customer last
    approved (a reader may fold a status said before the proposal into it, so not all); when
    there were none at all, a statement of what was done that names its action."""
    if expected:
        restated = expected & {e.value for e in reading.entities}
        return 2 * len(restated) >= len(expected)
    return any(a.action for a in reading.of(ActKind.DONE))


def gives_reason(reading: Reading) -> bool:
    """A refusal with its reason, or an explanation."""
    return reading.has(ActKind.EXPLAIN) or any(a.reason for a in reading.of(ActKind.REFUSE))
