"""Run specifications and work units (task × persona × trial), with sha256-derived seeds."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.messages import GuardMode
from evals.engine.orchestrator import Limits


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from sha256 of the parts joined by '|' (never Python's hash(), which
    is salted per process)."""
    text = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run; stored with the run so it can be reproduced.
    `personas` are persona specs (preset names or compositions, see persona.parse_persona).
    `judge_model` (any LiteLLM model name; `judge_params` as for the agent) enables the LLM
    judge of natural-language assertions; without it they are reported "not judged" and
    tasks judged by nothing else are left out of the plan."""

    domains: tuple[str, ...]
    personas: tuple[str, ...] = ("baseline",)
    trials: int = 1
    seed: int = 0
    split: str = "all"
    task_ids: tuple[str, ...] = ()
    agent: str = "sandbox/reference"
    agent_params: Mapping[str, Any] = field(default_factory=dict)
    user: str = "sandbox/scripted"
    user_params: Mapping[str, Any] = field(default_factory=dict)
    guard_mode: GuardMode = GuardMode.ENFORCE
    limits: Limits = field(default_factory=Limits)
    include_trajectory: bool = True
    judge_model: str = ""
    judge_params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.domains:
            raise EngineError("A run needs at least one domain")
        if self.trials < 1:
            raise EngineError("trials must be at least 1")
        if not self.personas:
            raise EngineError("A run needs at least one persona")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["domains"] = list(self.domains)
        data["personas"] = list(self.personas)
        data["task_ids"] = list(self.task_ids)
        data["guard_mode"] = self.guard_mode.value
        data["agent_params"] = dict(self.agent_params)
        data["user_params"] = dict(self.user_params)
        data["judge_params"] = dict(self.judge_params)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunSpec:
        d = dict(data)
        d["domains"] = tuple(d["domains"])
        d["personas"] = tuple(d.get("personas", ("baseline",)))
        d["task_ids"] = tuple(d.get("task_ids", ()))
        d["guard_mode"] = GuardMode(d.get("guard_mode", "enforce"))
        d["limits"] = Limits(**d["limits"]) if "limits" in d else Limits()
        return cls(**d)


@dataclass(frozen=True, slots=True)
class WorkUnit:
    domain: str
    task_id: str
    persona: str
    trial: int
    seed: int

    @property
    def key(self) -> str:
        return f"{self.domain}/{self.task_id}/{self.persona}/{self.trial}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "task_id": self.task_id,
            "persona": self.persona,
            "trial": self.trial,
            "seed": self.seed,
        }
