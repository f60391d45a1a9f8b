"""A domain: everything the engine needs to run trials in one business area."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.messages import Trajectory
from evals.engine.policy import MessageCheck, RuleCheck
from evals.engine.protocols import AgentFactory, UserFactory
from evals.engine.task import Assertion, Task
from evals.engine.tools import ToolSet
from evals.engine.world import World


@dataclass(frozen=True)
class Domain:
    """`build_world(seed)` returns a pristine world (the domain may cache it; the engine only
    ever uses copies). `load_tasks()` returns every task; splits are tags on the tasks.
    `reference_agent` / `scripted_user`: the domain's offline `sandbox/reference` and
    `sandbox/scripted` factories (None when the domain has none). `assertions`: the checks
    tasks may name (`Task.assertions`), `fn(world, **arguments) -> bool`.
    `scripted_languages`: the languages its `sandbox/scripted` customer writes (a persona's
    `language`); a run asking it for another is refused at planning, never faked.
    `published_reward(domain, task, trajectory, world)`: for a domain taken from a published
    benchmark, that benchmark's own reward criteria for a trial, by name (a criterion only a
    judge can decide is None until the judge's verdict is folded in); reported beside our
    reward, never part of it."""

    name: str
    policy: str
    tools: ToolSet
    rules: RuleCheck
    build_world: Callable[[int], World]
    load_tasks: Callable[[], Sequence[Task]]
    reference_agent: AgentFactory | None = None
    scripted_user: UserFactory | None = None
    description: str = ""
    assertions: Mapping[str, Callable[..., bool]] = field(default_factory=dict)
    scripted_languages: tuple[str, ...] = ("en",)
    published_reward: (
        Callable[[Domain, Task, Trajectory, World], Mapping[str, float | None]] | None
    ) = None
    message_rules: MessageCheck | None = None
    _cache: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    def fresh_world(self, seed: int) -> World:
        return self.build_world(seed).copy()

    @cached_property
    def tasks_by_id(self) -> dict[str, Task]:
        out: dict[str, Task] = {}
        for task in self.load_tasks():
            if task.id in out:
                raise EngineError(f"Domain {self.name}: duplicate task id {task.id!r}")
            out[task.id] = task
        return out

    def tasks(self, split: str = "all") -> list[Task]:
        found = [t for t in self.tasks_by_id.values() if split in t.splits]
        if not found:
            raise EngineError(f"Domain {self.name} has no task in split {split!r}")
        return found

    def task(self, task_id: str) -> Task:
        try:
            return self.tasks_by_id[task_id]
        except KeyError:
            raise EngineError(f"Domain {self.name} has no task {task_id!r}") from None

    def check(self, world: World, assertion: Assertion) -> bool:
        """Whether `assertion` holds on `world` (an unknown name is a broken task)."""
        fn: Any = self.assertions.get(assertion.name)
        if fn is None:
            raise EngineError(f"Domain {self.name} has no assertion {assertion.name!r}")
        return bool(fn(world, **assertion.arguments)) is assertion.expected

    def write_key(self, name: str, arguments: Mapping[str, Any]) -> str:
        """How two writes are compared: tool name and arguments, less the tool's free-text
        arguments (a summary for a human is not a value to match)."""
        tool = self.tools.get(name)
        drop = set(tool.free_text) if tool else set()
        kept = {k: v for k, v in arguments.items() if k not in drop}
        return name + json.dumps(kept, sort_keys=True, ensure_ascii=False)

    def splits(self) -> list[str]:
        seen: dict[str, None] = {}
        for t in self.tasks_by_id.values():
            for s in t.splits:
                seen[s] = None
        return list(seen)


def domain_tasks(domain: Domain, split: str, task_ids: Sequence[str] = ()) -> list[Task]:
    if task_ids:
        return [domain.task(t) for t in task_ids]
    return domain.tasks(split)


def package_domain(
    package: str,
    description: str,
    reference_agent: AgentFactory,
    scripted_user: UserFactory,
    *,
    world_module: str = "world",
) -> Domain:
    """The Domain of a package laid out as docs/domains.md says (evals/domains/<name>/): its
    name is the package's last part; `policy.md`; `rules.check_rules` (and
    `rules.check_message`, the message guard, where the domain has one); `tools.TOOLS` (and
    `tools.ASSERTIONS`, the checks its tasks may name, where it has them);
    `<world_module>.build_world`; `tasks.generate_tasks`. Its scripted customer writes
    English and Simplified Chinese. Called from the package's `load()`, so importing the
    package stays cheap and nothing loads before the domain is asked for."""
    rules = importlib.import_module(f"{package}.rules")
    tools = importlib.import_module(f"{package}.tools")
    world = importlib.import_module(f"{package}.{world_module}")
    tasks = importlib.import_module(f"{package}.tasks")
    folder = Path(importlib.import_module(package).__file__ or "").parent
    return Domain(
        name=package.rsplit(".", 1)[-1],
        policy=(folder / "policy.md").read_text(encoding="utf-8"),
        tools=tools.TOOLS,
        rules=rules.check_rules,
        message_rules=getattr(rules, "check_message", None),
        build_world=world.build_world,
        load_tasks=tasks.generate_tasks,
        reference_agent=reference_agent,
        scripted_user=scripted_user,
        assertions=getattr(tools, "ASSERTIONS", {}),
        description=description,
        scripted_languages=("en", "zh-Hans"),
    )
