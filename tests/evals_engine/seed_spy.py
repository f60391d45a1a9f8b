"""`test/seed-spy`: the reference agent, reporting the seed it was given as its resolved
model (`spy-<seed>`), so the seed travels in every record — from worker processes, Celery
tasks and across a resume — where a test can read it."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.messages import Message
from evals.engine.registry import agent_factory, register_agent

SEED_SPY = "test/seed-spy"


class SeedSpy:
    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        self.seed = seed
        self.inner = agent_factory("sandbox/reference")(domain=domain, params=params, seed=seed)

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        return self.inner.respond(messages, tools)

    def resolved_models(self) -> list[str]:
        return [f"spy-{self.seed}"]


def seed_of(models: Mapping[str, str]) -> int:
    return int(models["agent"].removeprefix("spy-"))


# Registered once per process (this module may be imported under two names).
with contextlib.suppress(EngineError):
    register_agent(SEED_SPY, SeedSpy)
