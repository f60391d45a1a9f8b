"""Personas of simulated customers: traits (as in τ-Trait), an emotion, politeness, urgency,
trust and language. Each acts through a mechanism that can make an agent fail (turn budget,
repeat tolerance, why-questions, mistakes, reassurance, read-backs, push-backs): the offline
customer's base (evals.engine.sandbox.user) implements them, `Persona.describe()` tells an LLM
customer the same, and docs/golive.md ("Persona mechanisms") has the table.

parse_persona("impatient")                          # a preset
parse_persona("impatience=high,emotion=anger:high") # free composition from baseline
parse_persona("skeptical,urgency=high")             # a preset, then overrides
parse_persona("baseline,language=zh-Hans")          # the same customer, writing Chinese

`expand_personas(["baseline", "grid:12"], seed)` replaces `grid:N` by N conditions drawn
deterministically from the seed out of the full grid, composed as in the emotion studies:
emotion family and intensity × politeness × urgency × trust × language.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from itertools import product
from typing import Any

from evals.engine.errors import EngineError


class Level(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return {"low": 0, "medium": 1, "high": 2}[self.value]


class Language(StrEnum):
    EN = "en"
    ZH_HANS = "zh-Hans"


class Emotion(StrEnum):
    NONE = "none"
    ANGER = "anger"
    ANXIETY = "anxiety"
    FRUSTRATION = "frustration"
    SADNESS = "sadness"
    DISTRUST = "distrust"


@dataclass(frozen=True, slots=True)
class Persona:
    name: str = "baseline"
    impatience: Level = Level.LOW
    skepticism: Level = Level.LOW
    confusion: Level = Level.LOW
    incoherence: Level = Level.LOW
    emotion: Emotion = Emotion.NONE
    emotion_intensity: Level = Level.LOW
    politeness: Level = Level.HIGH
    urgency: Level = Level.LOW
    trust: Level = Level.HIGH
    language: Language = Language.EN

    def describe(self) -> str:
        """One paragraph for an LLM user simulator's prompt."""
        parts = [
            f"impatience {self.impatience}",
            f"skepticism {self.skepticism}",
            f"confusion {self.confusion}",
            f"incoherence {self.incoherence}",
            f"politeness {self.politeness}",
            f"urgency {self.urgency}",
            f"trust in the company {self.trust}",
        ]
        if self.emotion is not Emotion.NONE:
            parts.append(f"emotion {self.emotion} at {self.emotion_intensity} intensity")
        text = "You are a customer with " + ", ".join(parts) + "."
        # The behaviours the offline customer (sandbox/user.py) has for the same traits, so an
        # LLM customer measures an agent the same way (docs/golive.md, "Persona mechanisms").
        if self.impatience is not Level.LOW or self.urgency is not Level.LOW:
            text += " You give up if the conversation drags on or the same question comes back."
        if self.skepticism is not Level.LOW:
            text += (
                " You ask why before giving personal details, and when the agent refuses"
                " without a reason you ask why not; if it still gives none, you leave."
            )
        if self.trust is Level.LOW:
            text += (
                " When the agent says something is done, ask it to read back exactly what it"
                " changed; if it cannot name the ids and amounts after a second ask, you leave."
            )
        if self.emotion in (Emotion.ANGER, Emotion.FRUSTRATION) and self.politeness is Level.LOW:
            text += (
                " You push back once when refused, asking for an exception, and leave if the"
                " agent ignores it."
            )
        if self.emotion is Emotion.ANXIETY:
            text += " You ask for reassurance that it will really work, and need an answer."
        if self.language is Language.ZH_HANS:
            text += " You write in Simplified Chinese (ids, emails and amounts as given)."
        return text

    def to_dict(self) -> dict[str, Any]:
        return {f.name: str(getattr(self, f.name)) for f in fields(self)}


BASELINE = Persona()
PRESETS: dict[str, Persona] = {
    "baseline": BASELINE,
    "impatient": replace(
        BASELINE,
        name="impatient",
        impatience=Level.HIGH,
        emotion=Emotion.FRUSTRATION,
        emotion_intensity=Level.MEDIUM,
        politeness=Level.LOW,
        urgency=Level.HIGH,
    ),
    "skeptical": replace(
        BASELINE,
        name="skeptical",
        skepticism=Level.HIGH,
        emotion=Emotion.DISTRUST,
        emotion_intensity=Level.MEDIUM,
        trust=Level.LOW,
        politeness=Level.MEDIUM,
    ),
    "confused": replace(BASELINE, name="confused", confusion=Level.HIGH, politeness=Level.HIGH),
    "incoherent": replace(
        BASELINE, name="incoherent", incoherence=Level.HIGH, confusion=Level.MEDIUM
    ),
    "anxious": replace(
        BASELINE,
        name="anxious",
        emotion=Emotion.ANXIETY,
        emotion_intensity=Level.HIGH,
        urgency=Level.MEDIUM,
        trust=Level.MEDIUM,
    ),
    "angry-urgent": replace(
        BASELINE,
        name="angry-urgent",
        impatience=Level.MEDIUM,
        emotion=Emotion.ANGER,
        emotion_intensity=Level.HIGH,
        politeness=Level.LOW,
        urgency=Level.HIGH,
        trust=Level.LOW,
    ),
}

_LEVEL_FIELDS = {
    "impatience",
    "skepticism",
    "confusion",
    "incoherence",
    "politeness",
    "urgency",
    "trust",
    "emotion_intensity",
}


def _level(key: str, raw: str) -> Level:
    try:
        return Level(raw.strip().lower())
    except ValueError:
        raise EngineError(f"Persona {key} must be low, medium or high, not {raw!r}") from None


def parse_persona(text: str) -> Persona:
    """A preset name, `key=value` overrides, or a preset followed by overrides.
    `emotion=anger:high` sets the emotion and its intensity."""
    text = text.strip()
    if text in PRESETS:
        return PRESETS[text]
    persona = BASELINE
    changes: dict[str, Any] = {}
    for raw in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in raw:
            if raw not in PRESETS:
                raise EngineError(f"Unknown persona preset {raw!r}; known: {', '.join(PRESETS)}")
            persona = PRESETS[raw]
            continue
        key, value = (s.strip() for s in raw.split("=", 1))
        if key == "emotion":
            name, _, intensity = value.partition(":")
            try:
                changes["emotion"] = Emotion(name.strip().lower())
            except ValueError:
                raise EngineError(
                    f"Unknown emotion {name!r}; known: {', '.join(e.value for e in Emotion)}"
                ) from None
            changes["emotion_intensity"] = (
                _level("emotion", intensity) if intensity else Level.MEDIUM
            )
        elif key in _LEVEL_FIELDS:
            changes[key] = _level(key, value)
        elif key == "language":
            try:
                changes["language"] = Language(value)
            except ValueError:
                known = ", ".join(lang.value for lang in Language)
                raise EngineError(f"Unknown language {value!r}; known: {known}") from None
        else:
            raise EngineError(f"Unknown persona trait {key!r}")
    return replace(persona, name=text, **changes)


GRID_PREFIX = "grid:"
_GRID_EMOTIONS: list[tuple[Emotion, Level]] = [(Emotion.NONE, Level.LOW)] + [
    (e, i) for e in Emotion if e is not Emotion.NONE for i in (Level.MEDIUM, Level.HIGH)
]


def grid() -> list[str]:
    """Every condition of the persona grid, as persona specs (emotion family and intensity ×
    politeness × urgency × trust × language)."""
    out = []
    for (emotion, intensity), polite, urgent, trust, language in product(
        _GRID_EMOTIONS,
        (Level.LOW, Level.HIGH),
        (Level.LOW, Level.HIGH),
        (Level.LOW, Level.HIGH),
        list(Language),
    ):
        parts = [] if emotion is Emotion.NONE else [f"emotion={emotion}:{intensity}"]
        parts += [f"politeness={polite}", f"urgency={urgent}", f"trust={trust}"]
        parts.append(f"language={language}")
        out.append(",".join(parts))
    return out


def expand_personas(specs: Iterable[str], seed: int) -> tuple[str, ...]:
    """`specs` with every `grid:N` replaced by N distinct grid conditions sampled from
    `seed` (the same seed always draws the same conditions); duplicates kept once."""
    out: dict[str, None] = {}
    for spec in specs:
        if not spec.startswith(GRID_PREFIX):
            out[spec] = None
            continue
        raw = spec.removeprefix(GRID_PREFIX)
        conditions = grid()
        if not raw.isdigit() or not 1 <= int(raw) <= len(conditions):
            raise EngineError(f"{spec!r}: grid:N takes a whole number from 1 to {len(conditions)}")
        digest = hashlib.sha256(f"{seed}|personas".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        for condition in rng.sample(conditions, int(raw)):
            out[condition] = None
    return tuple(out)
