"""The gold state: a task's gold writes replayed on a fresh world built from its seed, cached
per (domain, task) since every trial of the task compares against the same one."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.engine.domain import Domain
from evals.engine.errors import EngineError, ToolError
from evals.engine.task import GoldCall, Task
from evals.engine.world import World


@dataclass(frozen=True)
class GoldState:
    hash: str
    canonical: Mapping[str, Any]


_gold_cache: dict[tuple[str, str], GoldState] = {}
_gold_lock = threading.Lock()


def replay(domain: Domain, calls: Sequence[GoldCall], world: World) -> World:
    """Apply writes directly (no guard, no conversation); a failing gold call is a broken
    task and raises EngineError."""
    for call in calls:
        tool = domain.tools[call.name]
        try:
            tool.fn(world, **tool.parse_arguments(json.dumps(dict(call.arguments))))
        except ToolError as exc:
            raise EngineError(f"Gold call {call.name}{dict(call.arguments)} failed: {exc}") from exc
    return world


def gold_state(domain: Domain, task: Task) -> GoldState:
    key = (domain.name, task.id)
    cached = _gold_cache.get(key)
    if cached is not None:
        return cached
    world = replay(domain, task.gold, domain.fresh_world(task.world_seed))
    state = GoldState(hash=world.state_hash(), canonical=world.canonical())
    with _gold_lock:
        _gold_cache[key] = state
    return state
