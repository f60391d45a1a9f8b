"""What the trajectory shows the oracle: what the agent said, read and wrote, what the
customer did on its side, and which failure class a wrong final state points to."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from evals.engine.domain import Domain
from evals.engine.errors import ToolError
from evals.engine.messages import Message, Role, TerminationReason, Trajectory
from evals.engine.oracle.outcome import FailureClass
from evals.engine.task import GoldCall, Task, TaskKind
from evals.engine.tools import ToolKind

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


def writes(domain: Domain, trajectory: Trajectory) -> list[_Write]:
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


def classify_state(domain: Domain, task: Task, writes: list[_Write]) -> FailureClass:
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


def coordination_note(domain: Domain, task: Task, trajectory: Trajectory) -> str:
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
