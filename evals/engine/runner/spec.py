"""Run specifications and work units (task × persona × trial), with sha256-derived seeds;
the run's fingerprint; the agent's opaque seed."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.messages import GuardMode
from evals.engine.orchestrator import Limits
from evals.engine.runner.fingerprint import (
    fingerprint_of,
    json_native,
    python_code_digest,
    source_digest,
    without_secrets,
)

AGENT_KEY_BYTES = 32


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from sha256 of the parts joined by '|' (never Python's hash(), which
    is salted per process)."""
    text = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def new_agent_key() -> bytes:
    """A run's secret for the agent's seeds: 32 random bytes, generated when the run starts
    and kept with it (never in a trial record), so a resume derives the same seeds."""
    return secrets.token_bytes(AGENT_KEY_BYTES)


def agent_seed(key: bytes, unit_seed: int) -> int:
    """The seed the agent of a unit gets: a 63-bit HMAC-SHA256 of the unit's seed keyed by
    the run's secret. The unit's seed is sha256 of (run seed, domain, task, persona, trial),
    all public; without the key, the agent's seed says nothing about which task it is in
    (with `derive_seed` alone, trying every task id of the domain would find it)."""
    if len(key) < AGENT_KEY_BYTES:
        raise EngineError(f"an agent-seed key has {AGENT_KEY_BYTES} bytes, not {len(key)}")
    digest = hmac.new(key, f"agent|{unit_seed}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run; stored with the run so it can be reproduced.
    `personas` are persona specs (preset names or compositions, see persona.parse_persona).
    `judge_model` (any LiteLLM model name; `judge_params` as for the agent) enables the LLM
    judge of natural-language assertions; without it they are reported "not judged": a trial
    of a task judged in prose that passes every deterministic check is `not_judged`, never a
    pass, and the gate gives no verdict while any is. `num_tasks` > 0 runs a sample of that
    many tasks per domain, the same for the same seed."""

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
    # A sample of this many tasks per domain (0: every task of the split), drawn from `seed`.
    num_tasks: int = 0
    # The no-customer ablation (docs/domains.md, "Solo runs"): the agent holds every tool,
    # the customer's own too, and the customer only states its request.
    solo: bool = False

    def __post_init__(self) -> None:
        if not self.domains:
            raise EngineError("A run needs at least one domain")
        if self.trials < 1:
            raise EngineError("trials must be at least 1")
        if not self.personas:
            raise EngineError("A run needs at least one persona")
        if self.num_tasks < 0:
            raise EngineError("num_tasks must be 0 (every task) or more")

    def fingerprint_fields(self) -> dict[str, Any]:
        """What the run measures, secret-free and JSON-native (see runner.fingerprint);
        `include_trajectory` is left out: it changes what is stored, not what is measured.
        A `python:` agent or user adds the digest of its module's source ("agent_code",
        "user_code"); other names have no such field, so their fingerprints are unchanged."""
        fields: dict[str, Any] = {
            "agent": self.agent,
            "agent_params": without_secrets(self.agent_params),
            "user": self.user,
            "user_params": without_secrets(self.user_params),
            "judge": self.judge_model,
            "judge_params": without_secrets(self.judge_params),
            "domains": self.domains,
            "split": self.split,
            "task_ids": self.task_ids,
            "num_tasks": self.num_tasks,
            "personas": self.personas,
            "seed": self.seed,
            "trials": self.trials,
            "guard_mode": self.guard_mode.value,
            "limits": asdict(self.limits),
            "code": source_digest(),
        }
        if self.solo:
            # Only when set: a normal run's fingerprint is what it was before solo existed.
            fields["solo"] = True
        for key, name in (("agent_code", self.agent), ("user_code", self.user)):
            digest = python_code_digest(name)
            if digest:
                fields[key] = digest
        return json_native(fields)

    def fingerprint(self) -> str:
        """sha256 (hex) of the canonical JSON of `fingerprint_fields()`."""
        return fingerprint_of(self.fingerprint_fields())

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
