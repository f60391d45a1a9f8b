"""TrialRecord: one finished trial, as stored (one JSON line) and aggregated.

Three kinds of trial are not the agent's outcome and are excluded from pass^k (n and c):
infrastructure errors (provider, network, a crash in the harness), simulator errors (the
simulated customer demonstrably broke its scenario) and trials not judged (their success
depends on natural-language assertions and the run had no judge). `infrastructure` is True
for the first two — "not counted against the agent, re-run by resume" —, `simulator_error`
tells the second kind apart, `not_judged` the third (not re-run: without a judge a re-run
would be as unjudged). Reports count each apart and show pass^k with all of them counted as
failures beside the measured figure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evals.engine.runner.spec import WorkUnit


@dataclass(frozen=True)
class TrialRecord:
    domain: str
    task_id: str
    persona: str
    trial: int
    seed: int
    reward: float
    failure: str
    termination: str
    components: Mapping[str, float] = field(default_factory=dict)
    agent_turns: int = 0
    user_turns: int = 0
    questions: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    user_tool_calls: int = 0  # dual control: the customer's own tool calls
    policy_violations: int = 0
    seconds: float = 0.0
    participant_seconds: float = 0.0
    participant_calls: int = 0
    diff: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    error: str = ""
    usage: Mapping[str, float] = field(default_factory=dict)
    trajectory: Mapping[str, Any] | None = None
    # The models that answered, as resolved: {"agent": ..., "user": ...}. The user simulator
    # is part of the measuring instrument, so its model is on every result.
    models: Mapping[str, str] = field(default_factory=dict)
    # τ²'s natural-language assertions: [{"assertion", "status": met / not_met / not_judged,
    # "reasoning"}] — the judge's reasoning kept; "not_judged" when the run had no judge.
    nl_assertions: tuple[Mapping[str, str], ...] = ()
    # A published benchmark's own reward for the trial, by its definition (τ²-bench's for
    # the τ² domains): reported beside `reward`, never part of it; None when the domain has
    # none or it awaits a judge.
    published_reward: float | None = None
    # Its criteria, each 0..1 (τ²'s "DB", "COMMUNICATE", "ENV_ASSERTION", "ACTION",
    # "NL_ASSERTION"; None awaits a judge): `published_reward` is their product.
    published_criteria: Mapping[str, float | None] = field(default_factory=dict)
    # The run's fingerprint (RunSpec.fingerprint()): resume refuses a file or a run whose
    # trials carry another one, or none (they predate fingerprints).
    fingerprint: str = ""

    @property
    def key(self) -> str:
        return f"{self.domain}/{self.task_id}/{self.persona}/{self.trial}"

    @property
    def simulator_error(self) -> bool:
        """The simulated customer spoiled the trial (older files: a `SimulatorError` that
        ended the trial as an infrastructure error)."""
        if self.termination == "simulator_error" or self.failure == "simulator_error":
            return True
        return self.termination == "infrastructure_error" and "SimulatorError" in self.error

    @property
    def infrastructure(self) -> bool:
        """Not the agent's outcome: an infrastructure or a simulator error. Excluded from n
        and c, and re-run by resume."""
        return self.termination in ("infrastructure_error", "simulator_error") or (
            self.failure == "simulator_error"
        )

    @property
    def not_judged(self) -> bool:
        """Passed every deterministic check, but its prose assertions were not judged."""
        return self.failure == "not_judged"

    @property
    def unit(self) -> WorkUnit:
        return WorkUnit(self.domain, self.task_id, self.persona, self.trial, self.seed)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "key": self.key,
            "fingerprint": self.fingerprint,
            "domain": self.domain,
            "task_id": self.task_id,
            "persona": self.persona,
            "trial": self.trial,
            "seed": self.seed,
            "reward": self.reward,
            "failure": self.failure,
            "termination": self.termination,
            "components": dict(self.components),
            "agent_turns": self.agent_turns,
            "user_turns": self.user_turns,
            "questions": self.questions,
            "tool_calls": self.tool_calls,
            "tool_errors": self.tool_errors,
            "user_tool_calls": self.user_tool_calls,
            "policy_violations": self.policy_violations,
            "seconds": round(self.seconds, 6),
            "participant_seconds": round(self.participant_seconds, 6),
            "participant_calls": self.participant_calls,
            "diff": list(self.diff),
            "notes": list(self.notes),
            "error": self.error,
            "usage": dict(self.usage),
            "models": dict(self.models),
            "simulator_error": self.simulator_error,
            "published_reward": self.published_reward,
            "published_criteria": dict(self.published_criteria),
        }
        if self.nl_assertions:
            data["nl_assertions"] = [dict(v) for v in self.nl_assertions]
        if self.trajectory is not None:
            data["trajectory"] = self.trajectory
        return data

    def to_json_line(self) -> bytes:
        return (
            json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
        ).encode()

    @classmethod
    def from_json_line(cls, line: bytes | str) -> TrialRecord:
        return cls.from_dict(json.loads(line))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TrialRecord:
        return cls(
            domain=d["domain"],
            task_id=d["task_id"],
            persona=d["persona"],
            trial=int(d["trial"]),
            seed=int(d["seed"]),
            reward=float(d["reward"]),
            failure=d["failure"],
            termination=d["termination"],
            components=dict(d.get("components", {})),
            agent_turns=int(d.get("agent_turns", 0)),
            user_turns=int(d.get("user_turns", 0)),
            questions=int(d.get("questions", 0)),
            tool_calls=int(d.get("tool_calls", 0)),
            tool_errors=int(d.get("tool_errors", 0)),
            user_tool_calls=int(d.get("user_tool_calls", 0)),
            policy_violations=int(d.get("policy_violations", 0)),
            seconds=float(d.get("seconds", 0.0)),
            participant_seconds=float(d.get("participant_seconds", 0.0)),
            participant_calls=int(d.get("participant_calls", 0)),
            diff=tuple(d.get("diff", ())),
            notes=tuple(d.get("notes", ())),
            error=d.get("error", ""),
            usage=dict(d.get("usage", {})),
            trajectory=d.get("trajectory"),
            models=dict(d.get("models") or {}),
            nl_assertions=tuple(dict(v) for v in d.get("nl_assertions") or ()),
            published_reward=(
                None if d.get("published_reward") is None else float(d["published_reward"])
            ),
            published_criteria={
                str(k): None if v is None else float(v)
                for k, v in (d.get("published_criteria") or {}).items()
            },
            fingerprint=str(d.get("fingerprint") or ""),
        )
