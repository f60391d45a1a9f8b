"""Re-grading stored trials: the oracle (and the judge, when a judge model is given) over the
trajectories of a JSON-lines run, without calling the agent or the user simulator.

The oracle checks the world, never what the agent said it did, so the world of each trial is
rebuilt: a fresh world from the task's seed, then every tool call of the trajectory that
reached the world, in order — the agent's (except those the policy guard blocked, or whose
arguments were rejected before the guard) and the customer's own. Each replayed call must
give back the result stored in the trajectory; one that does not (the tools or the seed data
changed since the run) makes the trial impossible to re-grade honestly, and the whole
re-grade stops with `RegradeError` naming it rather than grading a world that never was.

Trials stored as infrastructure or simulator errors keep their record: re-grading cannot
turn a conversation that never finished into an outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from evals.domains import get_domain
from evals.engine.domain import Domain
from evals.engine.errors import EngineError
from evals.engine.messages import Message, Role, TerminationReason, Trajectory
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.runner.execute import with_judgement
from evals.engine.runner.records import TrialRecord
from evals.engine.runner.spec import RunSpec, WorkUnit
from evals.engine.runner.turns import opening_length
from evals.engine.tools import Actor, ToolKind
from evals.engine.world import World


class RegradeError(EngineError):
    """A stored trial cannot be re-graded; `str()` names it and why."""


def _stored_results(messages: tuple[Message, ...]) -> dict[str, Message]:
    return {m.tool_call_id: m for m in messages if m.role is Role.TOOL}


def _parses(tool: Any, arguments: str) -> bool:
    try:
        tool.parse_arguments(arguments)
    except Exception:  # the orchestrator's test: any failure to parse kept it from the world
        return False
    return True


def _unknown(result: Message) -> bool:
    return result.error and result.content.startswith("Error: unknown tool")


def rebuild_world(domain: Domain, task: Any, trajectory: Trajectory, key: str) -> World:
    """The trial's final world: its tool calls that reached the world, replayed in order."""
    world = domain.fresh_world(task.world_seed)
    blocked = {v.call_id for v in trajectory.verdicts if v.blocked}
    results = _stored_results(trajectory.messages)
    # A task's opening history is already in its world (its tool calls ran when the task's
    # world was made): replay from the first message the trial itself produced.
    for message in trajectory.messages[opening_length(task) :]:
        if message.role not in (Role.ASSISTANT, Role.USER):
            continue
        actor = Actor.AGENT if message.role is Role.ASSISTANT else Actor.USER
        for call in message.tool_calls:
            tool = domain.tools.get(call.name)
            if tool is None or call.id in blocked:
                continue  # answered without touching the world
            stored = results.get(call.id)
            if tool.actor is not actor and (
                actor is Actor.USER or stored is None or _unknown(stored)
            ):
                # Another side's tool: answered "unknown tool", except the customer's tools in
                # the agent's hands in a solo run, which ran.
                continue
            if stored is None:
                break  # the trial ended inside this turn (a limit, a crash)
            if (
                actor is Actor.AGENT
                and tool.kind is ToolKind.WRITE
                and stored.error
                and not _parses(tool, call.arguments)
            ):
                continue  # rejected before the guard: never ran
            result, _ = tool.invoke(world, call)
            if result.content != stored.content or result.error != stored.error:
                raise RegradeError(
                    f"trial {key} does not replay: {call.name} now returns "
                    f"{result.content[:80]!r}, the stored trajectory says "
                    f"{stored.content[:80]!r} (tools or seed data changed since the run)"
                )
    return world


def regrade_record(
    record: TrialRecord,
    *,
    judge_model: str = "",
    judge_params: Mapping[str, Any] | None = None,
) -> TrialRecord:
    """`record` graded again from its stored trajectory (see the module docstring)."""
    if record.infrastructure:
        return record
    if record.trajectory is None:
        raise RegradeError(
            f"trial {record.key} was stored without its trajectory (--no-trajectory): "
            "there is nothing to re-grade"
        )
    domain = get_domain(record.domain)
    task = domain.task(record.task_id)
    stored = Trajectory.from_dict(record.trajectory)
    # The runner marks the oracle's simulator errors on the trajectory; grade what ran.
    world = rebuild_world(domain, task, stored, record.key)
    evaluation = evaluate(domain, task, stored, world)
    trajectory = stored
    if evaluation.failure is FailureClass.SIMULATOR_ERROR:
        trajectory = replace(
            stored, termination=TerminationReason.SIMULATOR_ERROR, error="; ".join(evaluation.notes)
        )
    spec = RunSpec(
        domains=(record.domain,), judge_model=judge_model, judge_params=judge_params or {}
    )
    unit = WorkUnit(record.domain, record.task_id, record.persona, record.trial, record.seed)
    evaluation, trajectory, nl, usage = with_judgement(spec, unit, task, evaluation, trajectory)
    models = dict(record.models)
    if judge_model and task.judged_in_prose:
        models["judge"] = judge_model
    return replace(
        record,
        reward=evaluation.reward,
        failure=evaluation.failure.value,
        termination=trajectory.termination.value,
        components=evaluation.components,
        diff=evaluation.diff,
        notes=evaluation.notes,
        error=trajectory.error,
        usage=usage if judge_model else record.usage,
        models=models,
        nl_assertions=tuple(v.to_dict() for v in nl),
        published_reward=evaluation.published_reward,
    )


def regrade(
    records: Iterable[TrialRecord],
    *,
    judge_model: str = "",
    judge_params: Mapping[str, Any] | None = None,
) -> Iterator[TrialRecord]:
    """Each record re-graded, in order (a later record of a key still replaces an earlier
    one in a report, as in the run)."""
    for record in records:
        yield regrade_record(record, judge_model=judge_model, judge_params=judge_params)
