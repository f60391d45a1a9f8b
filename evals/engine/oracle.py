"""The deterministic oracle: reward and failure class of one trial.

Reward is the product of the task's components (`Task.reward_basis`):
- state: the final world equals the gold replay (the gold writes replayed on a fresh world
  built from the task's seed), compared by canonical hash; a readable diff when not;
- handoff: a handoff with the required category exists (when the task requires one);
- communicate: every required piece of information appears in the agent's messages;
- policy: no policy verdict with a violation (blocked attempts count: without the guard they
  would have gone through);
- assertions: every check of `Task.assertions` holds on the final world — in a dual-control
  domain the customer's side (`user:` tables, changed only by the customer's own tools) is
  judged this way, since the state component compares the agent's side only.
A trial the user abandoned scores 0. The oracle never reads what the agent claims it did.

`coordination_failure`: the agent's own side is right (state and handoff) but a user-side
assertion fails — the customer was never asked or given the chance to do its part, did it in
the wrong order, or the agent ended before the customer's side was done. Natural-language
assertions are judged outside the oracle (`evals.engine.judge`, applied by the runner).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from evals.engine.domain import Domain
from evals.engine.errors import EngineError, ToolError
from evals.engine.fidelity import announces_transfer, asks_for_confirmation, declined_gold_write
from evals.engine.messages import Message, Role, TerminationReason, Trajectory
from evals.engine.task import GoldCall, Task, TaskKind
from evals.engine.tools import ToolKind
from evals.engine.world import World, diff


class FailureClass(StrEnum):
    NONE = "none"
    INTENT_MISREAD = "intent_misread"
    WRONG_ORDER = "wrong_order"
    WRONG_ARGUMENTS = "wrong_arguments"
    OMISSION = "omission"
    POLICY_VIOLATION = "policy_violation"
    USER_ABANDONED = "user_abandoned"
    COORDINATION = "coordination_failure"
    AGENT_ERROR = "agent_error"
    # Handed the customer to a human (tool, announcement or the customer's ###TRANSFER###)
    # on a task that a human was not needed for.
    NEEDLESS_TRANSFER = "needless_transfer"
    # Ended at a limit (turns, wall time, tool errors): a failure whatever the final state.
    LIMIT_REACHED = "limit_reached"
    # The customer left while the agent's last message asked to go ahead with something no
    # outstanding write of the task is: a wrong, needless or unclear proposal.
    CUSTOMER_LEFT = "customer_left"
    # A refusal task the agent refused without reading what the policy decides on, or
    # without telling the customer the policy's reason.
    UNCHECKED_REFUSAL = "unchecked_refusal"
    INFRASTRUCTURE = "infrastructure"
    SIMULATOR_ERROR = "simulator_error"
    # Success depends on natural-language assertions and the run had no judge: neither a
    # pass nor a failure; counted apart, and a gate cannot pass it.
    NOT_JUDGED = "not_judged"


@dataclass(frozen=True)
class Evaluation:
    reward: float
    components: Mapping[str, float]
    failure: FailureClass
    diff: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    # The published benchmark's own criteria for this trial (`Domain.published_reward`; None:
    # left to the judge). Reported beside `reward`, never multiplied into it.
    published: Mapping[str, float | None] = field(default_factory=dict)

    @property
    def published_reward(self) -> float | None:
        """The benchmark's reward by its own definition: the product of its criteria; None
        when the domain publishes none or a criterion awaits the judge."""
        if not self.published or any(v is None for v in self.published.values()):
            return None
        reward = 1.0
        for value in self.published.values():
            reward *= value or 0.0
        return reward

    def to_dict(self) -> dict[str, Any]:
        return {
            "reward": self.reward,
            "components": dict(self.components),
            "failure": self.failure.value,
            "diff": list(self.diff),
            "notes": list(self.notes),
            "published": dict(self.published),
        }


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


_NUM = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers(text: str) -> set[Decimal]:
    out = set()
    for raw in _NUM.findall(text):
        try:
            out.add(Decimal(raw.replace(",", "")))
        except InvalidOperation:
            continue
    return out


def communicated(texts: Sequence[str], alternatives: Sequence[str]) -> bool:
    joined = "\n".join(texts).lower()
    numbers: set[Decimal] | None = None
    for alt in alternatives:
        if alt.lower() in joined:
            return True
        try:
            value = Decimal(alt)
        except InvalidOperation:
            continue
        if numbers is None:
            numbers = _numbers(joined)
        if value in numbers:
            return True
    return False


@dataclass(frozen=True, slots=True)
class _Write:
    name: str
    key: str
    ok: bool


def _writes(domain: Domain, trajectory: Trajectory) -> list[_Write]:
    """The agent's WRITE calls with valid arguments, in order, and whether each succeeded."""
    results = {m.tool_call_id: m for m in trajectory.messages if m.role is Role.TOOL}
    out = []
    for m in trajectory.messages:
        if m.role is not Role.ASSISTANT:
            continue
        for call in m.tool_calls:
            tool = domain.tools.get(call.name)
            if tool is None or tool.kind is not ToolKind.WRITE:
                continue
            try:
                args = tool.parse_arguments(call.arguments)
            except ToolError:
                continue
            result = results.get(call.id)
            out.append(
                _Write(call.name, domain.write_key(call.name, args), not (result and result.error))
            )
    return out


def _arguments_match(required: Mapping[str, Any], given: Mapping[str, Any]) -> bool:
    """Every required value was passed (strings compared without case or outer spaces)."""
    for name, want in required.items():
        have = given.get(name)
        if isinstance(want, str) and isinstance(have, str):
            if want.strip().lower() != have.strip().lower():
                return False
        elif want != have:
            return False
    return True


def lookups_missing(
    domain: Domain, task: Task, trajectory: Trajectory
) -> list[tuple[GoldCall, ...]]:
    """The entries of `task.required_reads` that no successful agent READ satisfies."""
    if not task.required_reads:
        return []
    failed = {m.tool_call_id for m in trajectory.messages if m.role is Role.TOOL and m.error}
    done: list[tuple[str, Mapping[str, Any]]] = []
    for m in trajectory.messages:
        if m.role is not Role.ASSISTANT:
            continue
        for call in m.tool_calls:
            tool = domain.tools.get(call.name)
            if tool is None or tool.kind is not ToolKind.READ or call.id in failed:
                continue
            try:
                done.append((call.name, tool.parse_arguments(call.arguments)))
            except ToolError:
                continue
    return [
        alternatives
        for alternatives in task.required_reads
        if not any(
            name == alt.name and _arguments_match(alt.arguments, args)
            for alt in alternatives
            for name, args in done
        )
    ]


def _classify_state(domain: Domain, task: Task, writes: list[_Write]) -> FailureClass:
    gold = [(g.name, domain.write_key(g.name, g.arguments)) for g in task.gold]
    gold_names = {n for n, _ in gold}
    done = [w for w in writes if w.ok]
    if any(w.name not in gold_names for w in done):
        return FailureClass.INTENT_MISREAD
    if not writes:
        return FailureClass.OMISSION
    attempted_keys = [w.key for w in writes]
    gold_keys = [k for _, k in gold]
    if gold_keys and all(k in attempted_keys for k in gold_keys):
        first = sorted(gold_keys, key=attempted_keys.index)
        if first != gold_keys:
            return FailureClass.WRONG_ORDER
    done_keys = [w.key for w in done]
    unmatched = [(n, k) for n, k in gold if k not in done_keys]
    # Wrong arguments: a write the gold does not hold, of a tool whose gold call is still
    # unmatched — an attempt at it with other values. A write that matches some gold call
    # exactly (a follow-up notify or note of a request that was done) is not one, even when
    # an unmatched gold call shares its tool name.
    off_gold = {w.name for w in writes if w.key not in gold_keys}
    if any(n in off_gold for n, _ in unmatched):
        return FailureClass.WRONG_ARGUMENTS
    if unmatched:
        return FailureClass.OMISSION
    if not gold:
        return FailureClass.INTENT_MISREAD
    return FailureClass.WRONG_ARGUMENTS


def _user_writes(domain: Domain, messages: Sequence[Message]) -> list[str]:
    """The customer's own WRITE calls (user-side tools), by name, in order."""
    out = []
    for m in messages:
        if m.role is Role.USER:
            for call in m.tool_calls:
                tool = domain.tools.get(call.name)
                if tool is not None and tool.kind is ToolKind.WRITE:
                    out.append(call.name)
    return out


def _coordination_note(domain: Domain, task: Task, trajectory: Trajectory) -> str:
    """Which way the two sides failed to meet."""
    done = _user_writes(domain, trajectory.messages)
    last = next((m for m in reversed(trajectory.messages) if m.role is not Role.TOOL), None)
    agent_ended = last is not None and last.role is Role.ASSISTANT
    if not done and agent_ended:
        return (
            "coordination: the agent ended the conversation before the customer did its "
            "part on its side"
        )
    if not done:
        return "coordination: the customer never did its part on its side (never asked or guided)"
    wanted = [g.name for g in task.user_gold]
    if wanted and [n for n in done if n in wanted] != wanted:
        return f"coordination: the customer's side was done out of order ({', '.join(done)})"
    return "coordination: the customer acted, but its side did not end as the task requires"


LIMITS = (TerminationReason.MAX_TURNS, TerminationReason.WALL_TIME, TerminationReason.MAX_ERRORS)


def human_expected(domain: Domain, task: Task) -> bool:
    """Whether the right outcome of `task` involves a human: a required hand-off category, or
    a gold write on a tool that ends the conversation (a transfer)."""
    if task.handoff_category or task.kind is TaskKind.HANDOFF:
        return True
    return any((t := domain.tools.get(g.name)) is not None and t.terminal for g in task.gold)


def evaluate(domain: Domain, task: Task, trajectory: Trajectory, world: World) -> Evaluation:
    if trajectory.termination is TerminationReason.INFRASTRUCTURE_ERROR:
        return Evaluation(0.0, {}, FailureClass.INFRASTRUCTURE, notes=(trajectory.error,))
    if trajectory.termination is TerminationReason.SIMULATOR_ERROR:
        return Evaluation(0.0, {}, FailureClass.SIMULATOR_ERROR, notes=(trajectory.error,))
    gold = gold_state(domain, task)
    published = (
        domain.published_reward(domain, task, trajectory, world) if domain.published_reward else {}
    )
    components: dict[str, float] = {}
    diff_lines: tuple[str, ...] = ()
    if "state" in task.reward_basis:
        same = world.state_hash() == gold.hash
        components["state"] = 1.0 if same else 0.0
        if not same:
            diff_lines = tuple(diff(gold.canonical, world.canonical()))
    if "handoff" in task.reward_basis and task.handoff_category:
        components["handoff"] = float(
            any(h.category == task.handoff_category for h in world.backoffice.handoffs)
        )
    texts = trajectory.agent_texts()
    missing = [alts for alts in task.communicate if not communicated(texts, alts)]
    if "communicate" in task.reward_basis and task.communicate:
        components["communicate"] = 0.0 if missing else 1.0
    failed = (
        [a for a in task.assertions if not domain.check(world, a)]
        if "assertions" in task.reward_basis
        else []
    )
    if "assertions" in task.reward_basis and task.assertions:
        components["assertions"] = 0.0 if failed else 1.0
    unread = lookups_missing(domain, task, trajectory) if "lookup" in task.reward_basis else []
    if "lookup" in task.reward_basis and task.required_reads:
        components["lookup"] = 0.0 if unread else 1.0
    violations = [v for v in trajectory.verdicts if v.violations]
    if "policy" in task.reward_basis:
        components["policy"] = 0.0 if violations else 1.0
    reward = 1.0
    for value in components.values():
        reward *= value
    notes = [f"not communicated: {' | '.join(alts)}" for alts in missing]
    notes += [f"{v.tool}: {x.code}" for v in violations for x in v.violations]
    notes += [f"assertion failed: {a.describe()}" for a in failed]
    notes += [
        "not looked up: " + " | ".join(f"{a.name}{dict(a.arguments)}" for a in alts)
        for alts in unread
    ]
    termination = trajectory.termination
    abandoned = termination is TerminationReason.USER_ABANDON
    limit = termination in LIMITS
    last_text = texts[-1] if texts else ""
    # A hand-off by the tool, or by the agent's last words: the customer left on them, or
    # the agent ended the conversation with them (a transfer said, then hung up).
    transferred = termination is TerminationReason.TRANSFER_TO_HUMAN or (
        termination in (TerminationReason.USER_STOP, TerminationReason.AGENT_END)
        and announces_transfer(last_text)
    )
    needless = transferred and not human_expected(domain, task)
    if abandoned or limit or needless:
        reward = 0.0
    if limit:
        notes.append(f"ended at a limit ({termination.value}): a failure whatever the state")
    if reward == 1.0:
        return Evaluation(1.0, components, FailureClass.NONE, diff_lines, tuple(notes), published)
    declined = "" if violations else declined_gold_write(domain, task, trajectory.messages)
    if declined:
        # The customer said no to exactly what its scenario wants, and the trial failed:
        # the instrument broke, not the agent.
        return Evaluation(0.0, components, FailureClass.SIMULATOR_ERROR, diff_lines, (declined,))
    if termination is TerminationReason.AGENT_ERROR:
        failure = FailureClass.AGENT_ERROR
    elif components.get("policy") == 0.0:
        # Writing other values than the customer confirmed is, at root, wrong arguments.
        codes = {x.code for v in violations for x in v.violations}
        only_args = codes == {"confirmation_arguments_differ"}
        failure = FailureClass.WRONG_ARGUMENTS if only_args else FailureClass.POLICY_VIOLATION
    elif limit:
        failure = FailureClass.LIMIT_REACHED
    elif needless:
        failure = FailureClass.NEEDLESS_TRANSFER
    elif abandoned:
        failure = FailureClass.USER_ABANDONED
    elif termination is TerminationReason.USER_STOP and asks_for_confirmation(last_text):
        failure = FailureClass.CUSTOMER_LEFT
        notes.append(f"the customer left after: {last_text[:200]}")
    elif (
        failed
        and all(a.side == "user" for a in failed)
        and components.get("state") != 0.0
        and components.get("handoff") != 0.0
    ):
        failure = FailureClass.COORDINATION
        notes.append(_coordination_note(domain, task, trajectory))
    elif task.kind is TaskKind.REFUSAL and components.get("state") != 0.0:
        failure = FailureClass.UNCHECKED_REFUSAL
    elif components.get("state") == 0.0 or components.get("handoff") == 0.0:
        failure = _classify_state(domain, task, _writes(domain, trajectory))
    else:
        failure = FailureClass.OMISSION
    return Evaluation(reward, components, failure, diff_lines, tuple(notes), published)


def with_nl_verdicts(evaluation: Evaluation, verdicts: Sequence[Any]) -> Evaluation:
    """Fold the judge's verdicts on the task's natural-language assertions into the reward
    (component `nl_assertions`), and into the published criteria left to the judge. A trial
    whose prose assertions were not judged (no judge model) is never passed on the
    deterministic checks alone: if those passed, its outcome is `not_judged` (neither pass
    nor failure; counted apart); if they failed, it failed."""
    judged = [v for v in verdicts if v.status != "not_judged"]
    if not judged:
        if verdicts and evaluation.reward >= 1.0:
            notes = (*evaluation.notes, f"{len(verdicts)} natural-language assertion(s) not judged")
            return replace(evaluation, reward=0.0, failure=FailureClass.NOT_JUDGED, notes=notes)
        return evaluation
    failed = [v for v in judged if v.status != "met"]
    components = {**evaluation.components, "nl_assertions": 0.0 if failed else 1.0}
    published = {
        k: (0.0 if failed else 1.0) if v is None else v for k, v in evaluation.published.items()
    }
    notes = (*evaluation.notes, *(f"nl assertion not met: {v.assertion}" for v in failed))
    if not failed:
        return replace(evaluation, components=components, published=published)
    failure = evaluation.failure
    if failure is FailureClass.NONE:
        failure = FailureClass.OMISSION  # the request, or what had to be said, left undone
    return replace(
        evaluation,
        reward=0.0,
        components=components,
        failure=failure,
        notes=notes,
        published=published,
    )
