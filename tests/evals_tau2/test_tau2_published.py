"""τ²-bench's own reward, reported beside ours and never part of it: equal on the gold, apart
where the definitions differ (our policy guard and required lookups; τ²'s comparison of the
customer's database, its default COMMUNICATE basis, its zero for a trial ended at a limit)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evals.domains import get_domain
from evals.engine.judge import NLVerdict
from evals.engine.messages import GuardMode, Message, TerminationReason
from evals.engine.metrics import render_table
from evals.engine.oracle import FailureClass, evaluate, with_nl_verdicts
from evals.engine.runner import MemorySink, RunSpec, TrialRecord, run
from tests.evals_tau2 import gold

DOMAINS = ["tau2_mock", "tau2_retail"]


def _met(task, evaluation):
    return with_nl_verdicts(evaluation, [NLVerdict(a, "met") for a in task.judged_in_prose])


@pytest.mark.parametrize("name", DOMAINS)
def test_on_the_gold_taus_reward_equals_ours(name):
    domain = get_domain(name)
    apart = {}
    for task in domain.tasks():
        evaluation = _met(task, evaluate(domain, task, *gold.play(domain, task)))
        assert evaluation.reward == 1.0, task.id
        if evaluation.published_reward != evaluation.reward:
            apart[task.id] = dict(evaluation.published)
    # τ² compares the customer's database too, and this task's gold actions leave out the
    # customer's own dismissal that its env assertion requires: τ² fails its own gold.
    expected = {"update_task_with_user_tools": {"DB": 0.0, "ACTION": 1.0, "ENV_ASSERTION": 1.0}}
    assert apart == (expected if name == "tau2_mock" else {})


def test_a_policy_violation_fails_ours_and_not_taus():
    domain = get_domain("tau2_retail")
    task = next(t for t in domain.tasks() if [g.name for g in t.gold] == ["cancel_pending_order"])
    trajectory, world = gold.play(
        domain, task, mode=GuardMode.OBSERVE, leave_out=("authenticate", "confirm")
    )
    evaluation = _met(task, evaluate(domain, task, trajectory, world))
    assert evaluation.components["state"] == 1.0  # observe mode: the writes went through
    assert evaluation.reward == 0.0
    assert evaluation.failure is FailureClass.POLICY_VIOLATION
    assert evaluation.published_reward == 1.0


@pytest.mark.parametrize("task_id", ["25", "57", "65"])
def test_doing_nothing_on_a_write_less_task_passes_taus_reward_not_ours(task_id):
    domain = get_domain("tau2_retail")
    task = domain.task(task_id)
    evaluation = evaluate(domain, task, *gold.idle(domain, task))
    assert evaluation.reward == 0.0
    # τ² judges these by the database (unchanged) and no natural-language assertion.
    assert evaluation.published == {"DB": 1.0, "NL_ASSERTION": 1.0}
    assert evaluation.published_reward == 1.0


def test_a_trial_ended_at_a_limit_scores_zero_for_tau2():
    domain = get_domain("tau2_mock")
    task = domain.task("update_task_1")
    trajectory, world = gold.play(domain, task)
    assert evaluate(domain, task, trajectory, world).published_reward == 1.0
    cut = replace(trajectory, termination=TerminationReason.MAX_TURNS)
    assert evaluate(domain, task, cut, world).published == {"termination": 0.0}


def test_a_task_without_a_reward_basis_needs_the_facts_said_for_tau2_only():
    # τ²'s default basis is DB and COMMUNICATE; ours, for such a task, the state alone.
    domain = get_domain("tau2_mock")
    task = domain.task("update_task_with_initialization_data")
    trajectory, world = gold.play(domain, task)
    assert evaluate(domain, task, trajectory, world).published == {"DB": 1.0, "COMMUNICATE": 1.0}
    silent = replace(trajectory, messages=trajectory.messages[:-1])
    evaluation = evaluate(domain, task, silent, world)
    assert evaluation.reward == 1.0
    assert evaluation.published == {"DB": 1.0, "COMMUNICATE": 0.0}
    # One message must hold each fact; commas in it do not count.
    said = (
        "Done: the agent acknowledged the previous context, and the agent confirmed the task "
        "status was updated successfully."
    )
    spoken = replace(trajectory, messages=(*trajectory.messages[:-1], Message.assistant(said)))
    assert evaluate(domain, task, spoken, world).published["COMMUNICATE"] == 1.0


def test_taus_action_criterion_is_the_share_of_gold_actions_called():
    domain = get_domain("tau2_mock")
    task = domain.task("update_task_with_user_tools")
    evaluation = evaluate(domain, task, *gold.idle(domain, task))
    assert evaluation.published == {"DB": 0.0, "ACTION": 0.0, "ENV_ASSERTION": 0.0}
    # A transfer matches whatever its summary says (the action compares no argument).
    impossible = domain.task("impossible_task_1")
    trajectory, world = gold.play(domain, impossible)
    assert evaluate(domain, impossible, trajectory, world).published == {"DB": 1.0, "ACTION": 1.0}


def test_natural_language_assertions_leave_taus_reward_to_the_judge():
    domain = get_domain("tau2_retail")
    task = domain.task("62")
    assert task.judged_in_prose
    evaluation = evaluate(domain, task, *gold.play(domain, task))
    assert evaluation.published == {"DB": 1.0, "NL_ASSERTION": None}
    assert evaluation.published_reward is None
    assert _met(task, evaluation).published_reward == 1.0
    unmet = [NLVerdict(a, "not_met") for a in task.judged_in_prose]
    assert with_nl_verdicts(evaluation, unmet).published_reward == 0.0


def test_the_record_and_the_report_carry_taus_reward_beside_ours():
    by_state = tuple(t.id for t in get_domain("tau2_mock").tasks() if not t.needs_judge)
    spec = RunSpec(domains=("tau2_mock",), task_ids=by_state, trials=2, agent="sandbox/reference")
    sink = MemorySink()
    report = run(spec, sink, ks=(1, 2))
    records = sink.records
    assert len(records) == 18 and all(r.reward == 1.0 for r in records)
    published = [r.published_reward for r in records]
    assert None not in published and 0.0 in published  # ours is never multiplied by it
    assert report.mean_reward == 1.0
    assert report.published_trials == 18
    assert report.published_mean_reward == pytest.approx(sum(published) / 18)
    assert f"mean {report.published_mean_reward:.3f} over 18 of 18" in render_table(report)
    line = records[0].to_json_line()
    assert TrialRecord.from_json_line(line).published_reward == records[0].published_reward
    older = {k: v for k, v in records[0].to_dict().items() if k != "published_reward"}
    assert TrialRecord.from_dict(older).published_reward is None


def test_the_record_and_the_report_carry_each_of_taus_criteria_beside_ours():
    """τ²'s reward is a product of its criteria (database, communicate, env assertions,
    actions); a report that shows only the product hides which one a run loses on."""
    by_state = tuple(t.id for t in get_domain("tau2_mock").tasks() if not t.needs_judge)
    spec = RunSpec(domains=("tau2_mock",), task_ids=by_state, trials=2, agent="sandbox/reference")
    sink = MemorySink()
    report = run(spec, sink, ks=(1, 2))
    records = sink.records
    for r in records:
        assert r.published_criteria, r.task_id
        product = 1.0
        for value in r.published_criteria.values():
            product *= value or 0.0
        assert product == r.published_reward, r.task_id
        again = TrialRecord.from_json_line(r.to_json_line())
        assert again.published_criteria == r.published_criteria
    names = {name for r in records for name in r.published_criteria}
    assert {"DB", "COMMUNICATE"} <= names
    for name in names:
        values = [r.published_criteria[name] for r in records if name in r.published_criteria]
        mean, trials = report.published_criteria[name]
        assert trials == len(values) and mean == pytest.approx(sum(values) / len(values))
        assert f"{name} {mean:.3f} ({trials})" in render_table(report)
    assert report.to_dict()["published_criteria"]["DB"] == list(report.published_criteria["DB"])
    older = {k: v for k, v in records[0].to_dict().items() if k != "published_criteria"}
    assert TrialRecord.from_dict(older).published_criteria == {}
