"""τ²-bench task data → engine tasks and worlds."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from evals.engine.errors import EngineError, ToolError
from evals.engine.task import Assertion, GoldCall, Scenario, Task, TaskKind
from evals.engine.tools import ToolKind, ToolSet
from evals.engine.world import Backoffice, Handoff, Session, World, state_hash, user_side

# A copy of τ²-bench's public data (sierra-research/tau2-bench at a2c0247, MIT; its LICENSE
# sits beside it) ships with the package, so the domains work on a fresh checkout.
BUNDLED_DATA = Path(__file__).resolve().parent / "data"

# τ² reward bases, mapped to the oracle's components. ENV_ASSERTION: the agent-side ones
# become gold writes (judged with the state), all of them are checked as assertions (the
# user side's only that way). NL_ASSERTION: an LLM judge, when the run configures one.
_BASIS = {
    "DB": ("state",),
    "ACTION": ("state",),
    "ENV_ASSERTION": ("state", "assertions"),
    "COMMUNICATE": ("communicate",),
    "NL_ASSERTION": ("nl_assertions",),
}


def data_dir() -> Path:
    raw = os.environ.get("TAU2_DATA_DIR")
    path = Path(raw) if raw else BUNDLED_DATA
    if not path.is_dir():
        raise EngineError(
            f"τ²-bench data not found at {path}; set TAU2_DATA_DIR to the folder holding "
            "<domain>/db.json, tasks.json, policy.md, split_tasks.json"
        )
    return path


@cache
def read_json(domain: str, name: str) -> Any:
    return json.loads((data_dir() / domain / name).read_text(encoding="utf-8"))


def read_policy(domain: str) -> str:
    return (data_dir() / domain / "policy.md").read_text(encoding="utf-8")


class Tau2World(World):
    """Tables of JSON records, exactly as τ²'s db.json. Records are never mutated in place
    (a copy is replaced), so `copy()`'s one-level copy isolates trials. The canonical form is
    the JSON itself: hashing 1,000 orders takes one `json.dumps`, not a tree walk.

    `shown`: like `session`, what this conversation established and no part of the compared
    state — the records (order ids) whose current details a tool result has shown the agent,
    for rules such as "check the order's status before taking the action"."""

    def __init__(
        self,
        tables: dict[str, dict[str, Any]],
        backoffice: Backoffice | None = None,
        session: Session | None = None,
    ) -> None:
        super().__init__(tables, backoffice, session)
        self.shown: set[str] = set()

    def copy(self) -> Tau2World:
        clone = super().copy()
        assert isinstance(clone, Tau2World)
        clone.shown = set()
        return clone

    def canonical(self) -> dict[str, Any]:
        return {
            "tables": {k: v for k, v in self.tables.items() if not user_side(k)},
            "backoffice": {
                "handoffs": [
                    {"category": h.category, "assignee": h.assignee, "customer_id": h.customer_id}
                    for h in self.backoffice.handoffs
                ],
            },
        }

    def state_hash(self) -> str:
        return state_hash(self.canonical())

    def get(self, table: str, key: str, what: str) -> dict[str, Any]:
        try:
            return self.tables[table][key]
        except KeyError:
            raise ToolError(f"{what} not found") from None

    def edit(self, table: str, key: str) -> dict[str, Any]:
        """A private deep copy of a record, already put in place of the original."""
        record = copy.deepcopy(self.tables[table][key])
        self.tables[table][key] = record
        return record


def transfer(world: Tau2World, summary: str) -> str:
    world.backoffice.handoffs.append(
        Handoff(
            category="human_agent",
            assignee="human_agents",
            customer_id="",
            reference="",
            summary=summary,
        )
    )
    return "Transfer successful"


def scenario_of(raw: Mapping[str, Any]) -> Scenario:
    us = raw.get("user_scenario") or {}
    instr = us.get("instructions")
    persona = us.get("persona") or ""
    if isinstance(instr, Mapping):
        return Scenario(
            reason=str(instr.get("reason_for_call") or ""),
            known_info=str(instr.get("known_info") or ""),
            unknown_info=str(instr.get("unknown_info") or ""),
            instructions=str(instr.get("task_instructions") or ""),
            data={"persona": persona, "ticket": raw.get("ticket") or ""},
        )
    return Scenario(reason=str(instr or raw.get("ticket") or ""), data={"persona": persona})


def convert_tasks(
    domain: str,
    tools: ToolSet,
    raw_tasks: Sequence[Mapping[str, Any]],
    splits: Mapping[str, Sequence[str]],
    *,
    build_world: Callable[[int], World],
    extra_gold: Callable[[Mapping[str, Any]], list[GoldCall]] = lambda raw: [],
    user_gold: Callable[[Mapping[str, Any]], list[GoldCall]] = lambda raw: [],
    world_seed: Callable[[int, Mapping[str, Any]], int] = lambda i, raw: 0,
    decision_reads: Callable[[Mapping[str, Any]], tuple[tuple[GoldCall, ...], ...]] = (
        lambda raw: ()
    ),
) -> list[Task]:
    """Every task, with its reward basis mapped to our components (a task judged only by
    natural-language assertions needs a judge: `Task.needs_judge`; runs without one report
    its trials `not judged`, never passed). Env assertions become `Task.assertions` (agent or user side), the customer's own
    writes that make the user-side ones true `Task.user_gold` (`user_gold`). The gold
    is the task's WRITE actions, in order (reads change nothing), replayed once here: a
    write that fails on replay changes nothing and is dropped, with a note on the task. Two
    published tasks have one: retail 64 tries an exchange on a pending order before
    modifying it (τ²'s own trajectory expects that failure), and retail 105 pays an exchange's
    $21.10 difference with a gift card holding $17.00 — our tool keeps the policy's balance
    check, so the correct outcome is the refusal and the order stays as it was."""
    by_task: dict[str, list[str]] = {}
    for split, ids in splits.items():
        for tid in ids:
            by_task.setdefault(str(tid), []).append(split)
    tasks: list[Task] = []
    for index, raw in enumerate(raw_tasks):
        criteria = raw.get("evaluation_criteria") or {}
        gold = _write_actions(tools, criteria) + extra_gold(raw)
        gold, dropped = _effective(tools, build_world(world_seed(index, raw)).copy(), gold)
        basis, nl = _basis(criteria)
        if not basis:
            continue
        handoff = any(g.name == "transfer_to_human_agents" for g in gold)
        kind = TaskKind.ACTION if gold else TaskKind.INFO
        if handoff and len(gold) == 1:
            kind = TaskKind.HANDOFF
        reads = () if gold else decision_reads(raw)
        if reads:
            basis = (*basis, "lookup")
        tasks.append(
            Task(
                id=str(raw["id"]),
                domain=domain,
                kind=kind,
                scenario=scenario_of(raw),
                gold=tuple(gold),
                world_seed=world_seed(index, raw),
                handoff_category="human_agent" if handoff else "",
                communicate=tuple((str(info),) for info in criteria.get("communicate_info") or ()),
                intents=tuple(g.name for g in gold),
                splits=("all", *by_task.get(str(raw["id"]), [])),
                reward_basis=(*basis, "policy"),
                notes=tuple(dropped),
                user_gold=tuple(user_gold(raw)),
                assertions=_assertions(criteria),
                nl_assertions=nl,
                required_reads=reads,
            )
        )
    for task in [t for t in tasks if not t.needs_judge][:5]:
        object.__setattr__(task, "splits", (*task.splits, "smoke"))
    return tasks


def _write_actions(tools: ToolSet, criteria: Mapping[str, Any]) -> list[GoldCall]:
    """The published actions that are our WRITE tools, in order (reads change nothing)."""
    return [
        GoldCall(a["name"], dict(a.get("arguments") or {}))
        for a in criteria.get("actions") or []
        if tools.get(a["name"]) is not None and tools[a["name"]].kind is ToolKind.WRITE
    ]


def _basis(criteria: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Our reward components for the published reward basis, and the natural-language
    assertions; no components: the task is not converted."""
    basis_raw = criteria.get("reward_basis") or (
        ["DB"] if criteria.get("actions") or criteria.get("env_assertions") else []
    )
    basis = tuple(dict.fromkeys(c for b in basis_raw for c in _BASIS.get(b, ())))
    nl = tuple(str(a) for a in criteria.get("nl_assertions") or ())
    if not basis and nl:
        basis = ("nl_assertions",)  # judged in prose only (mock create_task_1_nl_eval)
    return basis, nl


def _assertions(criteria: Mapping[str, Any]) -> tuple[Assertion, ...]:
    """The published env assertions, on the agent's side or the customer's (`env_type`)."""
    return tuple(
        Assertion(
            str(a["func_name"]),
            dict(a.get("arguments") or {}),
            side="user" if a.get("env_type") == "user" else "agent",
            expected=bool(a.get("assert_value", True)),
        )
        for a in criteria.get("env_assertions") or ()
    )


def _effective(
    tools: ToolSet, world: World, gold: list[GoldCall]
) -> tuple[list[GoldCall], list[str]]:
    """The gold writes that succeed when replayed in order, and a note for each that fails
    (τ²'s data, judged by our policy-correct tools)."""
    kept, notes = [], []
    for call in gold:
        try:
            call_tool(tools, world, call.name, call.arguments)
        except ToolError as exc:
            notes.append(
                f"τ² gold step {call.name}({json.dumps(dict(call.arguments))}) fails here "
                f"({exc}); it changes nothing and is left out of the gold state"
            )
            continue
        kept.append(call)
    return kept, notes


def gold_actions(raw: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every action of a τ² task (reads included), for replay checks and scripted agents."""
    criteria = raw.get("evaluation_criteria") or {}
    return [(a["name"], dict(a.get("arguments") or {})) for a in criteria.get("actions") or []]


def call_tool(tools: ToolSet, world: World, name: str, arguments: Mapping[str, Any]) -> Any:
    tool = tools[name]
    return tool.fn(world, **tool.parse_arguments(json.dumps(dict(arguments))))
