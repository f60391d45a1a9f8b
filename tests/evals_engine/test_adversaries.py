"""Agents written to slip through the verdict, each kept failing here.

Every finding of the adversarial review has its agent: the transfer proposer and the
sometimes-stop agent (failures once turned into simulator errors), the staller (running out
of turns once passed write-less tasks), the do-nothing agent and the blanket refuser."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine import registry
from evals.engine.adversaries import agent_name, transferred_writes
from evals.engine.messages import Message, Role, TerminationReason, Trajectory
from evals.engine.metrics import summarise
from evals.engine.oracle import FailureClass, evaluate, human_expected, replay
from evals.engine.orchestrator import Limits
from evals.engine.runner import MemorySink, RunSpec, run

retail = get_domain("retail")
membership = get_domain("membership")


def _run(agent: str, domains: Sequence[str] = ("retail", "membership"), **kw: Any) -> MemorySink:
    spec = RunSpec(domains=tuple(domains), agent=agent, include_trajectory=False, **kw)
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    return sink


def _tasks_proposed_away(*domains) -> set[str]:
    """The tasks with a gold write the transfer proposer offers a transfer instead of."""
    return {
        t.id
        for d in domains or (retail, membership)
        for t in d.tasks()
        if any(g.name in transferred_writes(d) for g in t.gold)
    }


def test_the_transfer_proposer_hands_away_every_write_but_the_hand_offs_whatever_its_name():
    # Not a list of verbs: a refund, an email change, a booking are handed away too; the
    # terminal hand-off tools are left as they are.
    assert transferred_writes(get_domain("billing")) == {"request_refund", "update_email"}
    clinic = transferred_writes(get_domain("clinic_admin"))
    assert {"book_appointment", "cancel_appointment", "request_records"} <= clinic
    assert "transfer_to_staff" not in clinic
    assert {"cancel_pending_order", "return_delivered_items", "request_refund"} <= (
        transferred_writes(retail)
    )
    assert not any("transfer" in name for name in transferred_writes(membership))


@pytest.mark.parametrize("domain", ["billing", "clinic_admin", "airline", "telecom"])
def test_on_every_domain_the_transfer_proposer_fails_each_task_with_a_write_it_hands_away(
    domain: str,
):
    d = get_domain(domain)
    sink = _run(agent_name("transfer_proposer"), domains=(domain,))
    away = _tasks_proposed_away(d)
    assert len(away) >= 10
    for r in sink.records:
        task = d.task(r.task_id)
        if r.task_id not in away:
            # It passes, unless it offered a transfer where nothing was to be written (a
            # write the policy refuses, proposed to a customer who asked for it).
            assert r.reward == 1.0 or r.failure in {"needless_transfer", "customer_left"}, (
                r.task_id,
                r.failure,
            )
        elif human_expected(d, task):
            # A hand-off was due anyway: the write it skipped is what fails the task.
            assert r.reward == 0.0, r.task_id
            assert r.failure in {"omission", "customer_left"}, (r.task_id, r.failure)
        else:
            assert r.reward == 0.0, r.task_id
            assert r.failure in {"needless_transfer", "customer_left"}, (r.task_id, r.failure)
    assert not any(r.simulator_error for r in sink.records)


def test_the_transfer_proposer_fails_every_task_it_hands_away_and_spoils_none():
    sink = _run(agent_name("transfer_proposer"))
    by_task = {r.task_id: r for r in sink.records}
    away = _tasks_proposed_away()
    assert away and away <= set(by_task)
    for task_id in away:
        r = by_task[task_id]
        assert r.reward == 0.0 and not r.infrastructure, (task_id, r.failure, r.error)
        assert r.failure in {"needless_transfer", "customer_left"}, (task_id, r.failure)
    assert not any(r.simulator_error for r in sink.records)
    report = summarise(sink.records, ks=(1,))
    assert report.pass_hat[1].value == report.pass_hat_strict[1].value
    assert report.pass_hat[1].value <= 1 - len(away) / len(by_task) + 1e-9


def test_the_sometimes_stop_agent_is_charged_for_every_trial_it_ends_by_a_transfer():
    sink = _run(agent_name("sometimes_stop"), trials=4)
    assert not any(r.simulator_error for r in sink.records)
    stopped = [r for r in sink.records if r.failure == "needless_transfer"]
    assert len(stopped) > len(sink.records) / 10  # about a quarter of the trials with a write
    report = summarise(sink.records, ks=(1, 4))
    # Nothing excluded: the figure is the agent's, and below the reference agent's.
    assert report.short_cells[4] == () and report.pass_hat[4].value < 0.8
    assert report.pass_hat[4].value == report.pass_hat_strict[4].value


class _Patient:
    """A customer who restates its request forever and never leaves."""

    def __init__(self, **kwargs: Any) -> None:
        self.reason = kwargs["scenario"].reason

    def respond(self, messages: Sequence[Message]) -> Message:
        return Message.user(f"As I said: {self.reason}")


@pytest.fixture
def patient_user() -> Any:
    registry.register_user("test/patient", lambda **kw: _Patient(**kw))
    yield "test/patient"
    registry._users.pop("test/patient", None)


def test_running_out_of_turns_fails_every_task_whatever_the_final_state(patient_user):
    sink = _run(
        agent_name("stall"),
        domains=("retail", "membership", "tau2_mock"),
        user=patient_user,
        limits=Limits(max_turns=6),
    )
    assert {r.termination for r in sink.records} == {"max_turns"}
    assert {r.failure for r in sink.records} == {"limit_reached"}
    assert all(r.reward == 0.0 for r in sink.records)


@pytest.mark.parametrize("limit", ["max_turns", "wall_time", "max_errors"])
def test_an_unchanged_world_at_a_limit_scores_zero_on_every_tau2_retail_task(limit):
    domain = get_domain("tau2_retail")
    for task in domain.tasks():
        messages = (
            Message.system(domain.policy),
            Message.assistant("Hi! How can I help you today?"),
            Message(Role.USER, task.scenario.reason),
        )
        idle = Trajectory(messages, (), (), TerminationReason(limit), 0, 0.0)
        evaluation = evaluate(domain, task, idle, domain.fresh_world(task.world_seed))
        assert evaluation.reward == 0.0, task.id
        assert evaluation.failure in {
            FailureClass.LIMIT_REACHED,
            FailureClass.POLICY_VIOLATION,
        }, (task.id, evaluation.failure)


@pytest.mark.parametrize(
    "agent",
    [
        "sandbox/fault:do_nothing",
        agent_name("blanket_refuser"),
        agent_name("stall"),
    ],
)
def test_a_bad_agent_scores_zero_on_every_task_of_every_offline_domain(agent):
    sink = _run(agent, domains=("retail", "membership", "tau2_mock"))
    passed = sorted(r.key for r in sink.records if r.reward >= 1.0)
    assert passed == [], passed
    assert not any(r.infrastructure for r in sink.records)


# An LLM customer hands itself over with ###TRANSFER###; the engine once mapped it to a stop,
# so a needless hand-off could end as a "stop before the last write" (a simulator error).
TRANSFERRING_CUSTOMER = {"mock_response": "Just put me through to a person. ###TRANSFER###"}


def test_an_llm_customers_transfer_is_a_hand_off_the_oracle_fails_when_no_human_is_needed():
    spec = RunSpec(
        domains=("retail",),
        agent="sandbox/reference",
        user="gpt-4o-mini",
        user_params=TRANSFERRING_CUSTOMER,
        split="smoke",
        include_trajectory=False,
    )
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    assert sink.records
    assert {r.termination for r in sink.records} == {"transfer_to_human"}
    assert not any(r.simulator_error or r.infrastructure for r in sink.records)
    assert all(r.reward == 0.0 for r in sink.records)
    by_task = {t.id: t for t in retail.tasks()}
    needless = [r for r in sink.records if not human_expected(retail, by_task[r.task_id])]
    assert needless and {r.failure for r in needless} == {"needless_transfer"}
    report = summarise(sink.records, ks=(1,))
    assert report.pass_hat[1].value == report.pass_hat_strict[1].value == 0.0


def test_a_hand_off_passes_only_where_the_task_expects_a_human_and_the_escalation_is_made():
    expected = [t for t in retail.tasks() if human_expected(retail, t)]
    other = next(t for t in retail.tasks() if not human_expected(retail, t) and t.gold)
    assert expected
    for task in expected:
        handed = replay(retail, task.gold, retail.fresh_world(task.world_seed))
        done = Trajectory(
            (Message(Role.USER, task.scenario.reason),),
            (),
            (),
            TerminationReason.TRANSFER_TO_HUMAN,
            1,
            0.0,
        )
        assert evaluate(retail, task, done, handed).reward == 1.0, task.id
        # The same hand-off without the escalation the policy asks for fails.
        bare = evaluate(retail, task, done, retail.fresh_world(task.world_seed))
        assert bare.reward == 0.0 and bare.failure is not FailureClass.SIMULATOR_ERROR, task.id
    idle = Trajectory(
        (Message(Role.USER, other.scenario.reason),),
        (),
        (),
        TerminationReason.TRANSFER_TO_HUMAN,
        1,
        0.0,
    )
    evaluation = evaluate(retail, other, idle, retail.fresh_world(other.world_seed))
    assert evaluation.reward == 0.0
    assert evaluation.failure is FailureClass.NEEDLESS_TRANSFER
