"""The oracle's verdict on one trial, in three steps: score the task's reward components
against the world and the trajectory, read how the conversation ended, and name the failure
class of a trial that did not pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evals.engine.domain import Domain
from evals.engine.fidelity import announces_transfer, asks_for_confirmation, declined_gold_write
from evals.engine.messages import PolicyVerdict, TerminationReason, Trajectory
from evals.engine.oracle.evidence import (
    LIMITS,
    classify_state,
    communicated,
    coordination_note,
    human_expected,
    lookups_missing,
    writes,
)
from evals.engine.oracle.gold import GoldState, gold_state
from evals.engine.oracle.outcome import Evaluation, FailureClass
from evals.engine.task import Assertion, GoldCall, Task, TaskKind
from evals.engine.world import World, diff


@dataclass(frozen=True)
class _Scores:
    """The components of the reward (in the order they are reported) and what each found
    wrong: information not communicated, assertions failed, lookups not made, verdicts with
    a violation."""

    components: dict[str, float]
    diff: tuple[str, ...]
    missing: list[tuple[str, ...]]
    failed: list[Assertion]
    unread: list[tuple[GoldCall, ...]]
    violations: list[PolicyVerdict]

    @property
    def reward(self) -> float:
        reward = 1.0
        for value in self.components.values():
            reward *= value
        return reward

    def notes(self) -> list[str]:
        notes = [f"not communicated: {' | '.join(alts)}" for alts in self.missing]
        notes += [f"{v.tool}: {x.code}" for v in self.violations for x in v.violations]
        notes += [f"assertion failed: {a.describe()}" for a in self.failed]
        notes += [
            "not looked up: " + " | ".join(f"{a.name}{dict(a.arguments)}" for a in alts)
            for alts in self.unread
        ]
        return notes


def _score(
    domain: Domain,
    task: Task,
    trajectory: Trajectory,
    world: World,
    gold: GoldState,
    texts: Sequence[str],
) -> _Scores:
    """Each component of `task.reward_basis` that applies to the task, 1.0 or 0.0."""
    basis = task.reward_basis
    components: dict[str, float] = {}
    diff_lines: tuple[str, ...] = ()
    if "state" in basis:
        same = world.state_hash() == gold.hash
        components["state"] = 1.0 if same else 0.0
        if not same:
            diff_lines = tuple(diff(gold.canonical, world.canonical()))
    if "handoff" in basis and task.handoff_category:
        components["handoff"] = float(
            any(h.category == task.handoff_category for h in world.backoffice.handoffs)
        )
    missing = [alts for alts in task.communicate if not communicated(texts, alts)]
    if "communicate" in basis and task.communicate:
        components["communicate"] = 0.0 if missing else 1.0
    failed = (
        [a for a in task.assertions if not domain.check(world, a)] if "assertions" in basis else []
    )
    if "assertions" in basis and task.assertions:
        components["assertions"] = 0.0 if failed else 1.0
    unread = lookups_missing(domain, task, trajectory) if "lookup" in basis else []
    if "lookup" in basis and task.required_reads:
        components["lookup"] = 0.0 if unread else 1.0
    violations = [v for v in trajectory.verdicts if v.violations]
    if "policy" in basis:
        components["policy"] = 0.0 if violations else 1.0
    return _Scores(components, diff_lines, missing, failed, unread, violations)


@dataclass(frozen=True)
class _Ending:
    """How the conversation ended, as far as the reward is concerned."""

    termination: TerminationReason
    last_text: str
    abandoned: bool
    limit: bool
    # Handed to a human on a task a human was not needed for.
    needless: bool

    @property
    def fails(self) -> bool:
        """An ending that is a failure whatever the final state."""
        return self.abandoned or self.limit or self.needless


def _ending(domain: Domain, task: Task, trajectory: Trajectory, texts: Sequence[str]) -> _Ending:
    termination = trajectory.termination
    last_text = texts[-1] if texts else ""
    # A hand-off by the tool, or by the agent's last words: the customer left on them, or
    # the agent ended the conversation with them (a transfer said, then hung up).
    transferred = termination is TerminationReason.TRANSFER_TO_HUMAN or (
        termination in (TerminationReason.USER_STOP, TerminationReason.AGENT_END)
        and announces_transfer(last_text)
    )
    return _Ending(
        termination=termination,
        last_text=last_text,
        abandoned=termination is TerminationReason.USER_ABANDON,
        limit=termination in LIMITS,
        needless=transferred and not human_expected(domain, task),
    )


def _failure(
    domain: Domain, task: Task, trajectory: Trajectory, scores: _Scores, ending: _Ending
) -> tuple[FailureClass, str]:
    """The failure class of a trial that did not pass, and a note that explains it (or "")."""
    components = scores.components
    if ending.termination is TerminationReason.AGENT_ERROR:
        return FailureClass.AGENT_ERROR, ""
    if components.get("policy") == 0.0:
        # Writing other values than the customer confirmed is, at root, wrong arguments.
        codes = {x.code for v in scores.violations for x in v.violations}
        only_args = codes == {"confirmation_arguments_differ"}
        return (FailureClass.WRONG_ARGUMENTS if only_args else FailureClass.POLICY_VIOLATION), ""
    if ending.limit:
        return FailureClass.LIMIT_REACHED, ""
    if ending.needless:
        return FailureClass.NEEDLESS_TRANSFER, ""
    if ending.abandoned:
        return FailureClass.USER_ABANDONED, ""
    if ending.termination is TerminationReason.USER_STOP and asks_for_confirmation(
        ending.last_text
    ):
        return FailureClass.CUSTOMER_LEFT, f"the customer left after: {ending.last_text[:200]}"
    if (
        scores.failed
        and all(a.side == "user" for a in scores.failed)
        and components.get("state") != 0.0
        and components.get("handoff") != 0.0
    ):
        return FailureClass.COORDINATION, coordination_note(domain, task, trajectory)
    if task.kind is TaskKind.REFUSAL and components.get("state") != 0.0:
        return FailureClass.UNCHECKED_REFUSAL, ""
    if components.get("state") == 0.0 or components.get("handoff") == 0.0:
        return classify_state(domain, task, writes(domain, trajectory)), ""
    return FailureClass.OMISSION, ""


def evaluate(domain: Domain, task: Task, trajectory: Trajectory, world: World) -> Evaluation:
    if trajectory.termination is TerminationReason.INFRASTRUCTURE_ERROR:
        return Evaluation(0.0, {}, FailureClass.INFRASTRUCTURE, notes=(trajectory.error,))
    if trajectory.termination is TerminationReason.SIMULATOR_ERROR:
        return Evaluation(0.0, {}, FailureClass.SIMULATOR_ERROR, notes=(trajectory.error,))
    gold = gold_state(domain, task)
    published = (
        domain.published_reward(domain, task, trajectory, world) if domain.published_reward else {}
    )
    texts = trajectory.agent_texts()
    scores = _score(domain, task, trajectory, world, gold, texts)
    ending = _ending(domain, task, trajectory, texts)
    reward = 0.0 if ending.fails else scores.reward
    notes = scores.notes()
    if ending.limit:
        notes.append(f"ended at a limit ({ending.termination.value}): a failure whatever the state")
    components, diff_lines = scores.components, scores.diff
    if reward == 1.0:
        return Evaluation(1.0, components, FailureClass.NONE, diff_lines, tuple(notes), published)
    declined = "" if scores.violations else declined_gold_write(domain, task, trajectory.messages)
    if declined:
        # The customer said no to exactly what its scenario wants, and the trial failed:
        # the instrument broke, not the agent.
        return Evaluation(0.0, components, FailureClass.SIMULATOR_ERROR, diff_lines, (declined,))
    failure, note = _failure(domain, task, trajectory, scores, ending)
    if note:
        notes.append(note)
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
