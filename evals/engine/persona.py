"""Personas of simulated customers: traits (as in τ-Trait), an emotion, and style knobs.

parse_persona("impatient")                          # a preset
parse_persona("impatience=high,emotion=anger:high") # free composition from baseline
parse_persona("skeptical,urgency=high")             # a preset, then overrides
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from evals.engine.errors import EngineError


class Level(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return {"low": 0, "medium": 1, "high": 2}[self.value]


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
        return "You are a customer with " + ", ".join(parts) + "."

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
        else:
            raise EngineError(f"Unknown persona trait {key!r}")
    return replace(persona, name=text, **changes)
