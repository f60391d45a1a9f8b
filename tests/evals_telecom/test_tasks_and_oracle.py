"""The telecom tasks and how the oracle judges both sides: gold replay, the customer's own
part, the offline models, the injected faults and the adversaries."""

import json

import pytest

from evals.domains.telecom.scripted import TelecomReferenceAgent, TelecomScriptedUser
from evals.engine.adversaries import transferred_writes
from evals.engine.errors import EngineError
from evals.engine.faults import APPLIES, EXPECTED, agent_name
from evals.engine.oracle import FailureClass, evaluate, replay
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import TaskKind
from tests.evals_telecom.conftest import DOMAIN
from tests.support import domain_kit as kit

TASKS = DOMAIN.tasks()
SECRET_ARGUMENTS = ("puk", "activation_code")
DUAL = [t for t in TASKS if t.user_gold]
REFUSALS = [t for t in TASKS if t.kind is TaskKind.REFUSAL]


def records(agent="sandbox/reference", persona="baseline", split="all", **kw):
    spec = RunSpec(domains=("telecom",), split=split, personas=(persona,), agent=agent, **kw)
    return [run_unit(spec, unit) for unit in plan(spec)]


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    smoke = kit.assert_a_full_task_set(DOMAIN)
    assert {TaskKind.ACTION, TaskKind.REFUSAL} <= {t.kind for t in smoke}
    assert any(t.user_gold for t in smoke)
    assert {t.scenario.data["identity"]["gives"] for t in TASKS} == {"email", "phone"}
    assert any(t.scenario.data["identity"]["wrong_dob"] for t in TASKS)
    assert len(DUAL) >= 30


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_gold_and_the_customers_part_make_every_assertion_true_and_neither_alone_does(task):
    kit.assert_gold_changes_the_state_unless_refused(DOMAIN, task)
    if not task.assertions:
        assert not task.user_gold
        return
    assert all(a.side == "user" for a in task.assertions)
    agent_only = replay(DOMAIN, task.gold, DOMAIN.fresh_world(task.world_seed))
    both = replay(DOMAIN, task.user_gold, agent_only.copy())
    assert all(DOMAIN.check(both, a) for a in task.assertions)
    assert not all(DOMAIN.check(agent_only, a) for a in task.assertions)
    secrets = [
        str(v) for g in task.user_gold for k, v in g.arguments.items() if k in SECRET_ARGUMENTS
    ]
    if secrets:
        # The customer can take its step only with what the agent tells it: its scenario
        # does not hold the PUK or the activation code.
        said = task.scenario.prompt() + json.dumps(dict(task.scenario.data))
        assert not any(x in said for x in secrets)
        return
    try:
        phone_only = replay(DOMAIN, task.user_gold, DOMAIN.fresh_world(task.world_seed))
    except EngineError:
        return  # the phone's step cannot even be taken before the agent's (carrier settings)
    assert not all(DOMAIN.check(phone_only, a) for a in task.assertions)


def test_refusals_rest_on_a_lookup_and_the_policys_reason():
    for task in REFUSALS:
        assert task.required_reads and not task.gold and not task.user_gold
        assert len(task.communicate) == 2


@pytest.mark.parametrize("language", ["en", "zh-Hans"])
def test_the_reference_agent_passes_every_task_with_a_baseline_customer(language):
    recs = records(persona=f"baseline,language={language}")
    assert [r.task_id for r in recs if r.reward != 1.0] == []


def test_the_reference_agent_answers_a_chinese_customer_in_chinese():
    for rec in records(persona="baseline,language=zh-Hans", split="smoke"):
        messages = rec.trajectory["messages"][2:]
        said = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")]
        assert said and all(any("\u4e00" <= ch <= "\u9fff" for ch in s) for s in said), said


@pytest.mark.parametrize("persona", ["impatient", "skeptical", "confused"])
def test_the_reference_agent_passes_the_default_personas(persona):
    recs = records(persona=persona)
    assert sum(r.reward for r in recs) / len(recs) >= 0.98


def test_the_same_seed_gives_an_identical_trajectory():
    first = records(persona="confused", split="smoke")
    second = records(persona="confused", split="smoke")
    assert [r.trajectory["messages"] for r in first] == [r.trajectory["messages"] for r in second]


def test_a_confused_customer_may_need_a_step_repeated_and_the_agent_repeats_it():
    repeated = 0
    for seed in range(8):
        for rec in records(
            persona="confused",
            split="all",
            seed=seed,
            task_ids=tuple(t.id for t in TASKS if t.id.startswith(("telecom-045", "telecom-046"))),
        ):
            assert rec.reward == 1.0
            texts = [
                m.get("content", "") for m in rec.trajectory["messages"] if m["role"] == "user"
            ]
            repeated += any("first step" in t for t in texts)
    assert repeated


@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_each_injected_fault_is_caught_with_its_failure_class_wherever_it_applies(fault):
    applies = [t.id for t in TASKS if APPLIES[fault](DOMAIN, t)]
    if fault in ("wrong_item", "wrong_order"):
        assert applies == []  # no item ids; no two writes whose order changes the state
        return
    assert applies
    recs = records(agent=agent_name(fault), task_ids=tuple(applies))
    assert [r.task_id for r in recs if r.reward != 0.0] == []
    expected = {EXPECTED[fault].value}
    if fault == "do_nothing":
        # On a refusal task, saying nothing is an unchecked refusal rather than an omission.
        expected.add(FailureClass.UNCHECKED_REFUSAL.value)
    wrong = [(r.task_id, r.failure) for r in recs if r.failure not in expected]
    assert wrong == []


def test_ending_before_the_customers_part_is_a_coordination_failure_on_every_dual_task():
    recs = records(agent=agent_name("end_before_user"), task_ids=tuple(t.id for t in DUAL))
    assert {r.failure for r in recs} == {FailureClass.COORDINATION.value}
    assert all(any("coordination:" in n for n in r.notes) for r in recs)


@pytest.mark.parametrize("agent", ["sandbox/fault:do_nothing", "sandbox/adversary:blanket_refuser"])
def test_the_do_nothing_agent_and_the_blanket_refuser_score_zero_everywhere(agent):
    recs = records(agent=agent)
    assert [r.task_id for r in recs if r.reward != 0.0] == []


@pytest.mark.parametrize("task", REFUSALS, ids=lambda t: t.id)
def test_a_policy_blind_agent_gets_a_yes_and_a_policy_violation_on_every_refusal_task(task):
    world = DOMAIN.fresh_world(task.world_seed)
    agent = TelecomReferenceAgent(domain=DOMAIN, params={"policy": "blind"}, seed=1)
    user = TelecomScriptedUser(scenario=task.scenario, persona=parse_persona("baseline"), seed=1)
    trajectory = Orchestrator(
        domain=DOMAIN, world=world, agent=agent, user=user, guard=PolicyGuard(DOMAIN.rules)
    ).run()
    assert any(v.violations for v in trajectory.verdicts)
    assert evaluate(DOMAIN, task, trajectory, world).failure is FailureClass.POLICY_VIOLATION


def _pass1(**params):
    total = []
    for persona in ("baseline", "impatient", "skeptical", "confused"):
        total += [r.reward for r in records(persona=persona, agent_params=params, trials=2, seed=7)]
    return sum(total) / len(total)


def test_the_reference_agent_reworded_scores_within_two_points_of_the_original():
    original = _pass1(phrasing="en")
    for phrasing in ("en-2", "zh"):
        assert abs(_pass1(phrasing=phrasing) - original) <= 0.02, phrasing


def test_importing_the_telecom_domain_does_not_import_django():
    kit.assert_loads_without_django("telecom")


def test_the_transfer_proposer_fails_every_task_with_a_write_it_hands_away():
    # It offers a transfer instead of every write but the hand-off (not only roaming and
    # eSIM writes, as when it knew writes by their names).
    recs = records(agent="sandbox/adversary:transfer_proposer")
    handed = transferred_writes(DOMAIN)
    assert {"enable_roaming", "issue_esim", "pay_bill", "change_plan"} <= handed
    away = {t.id for t in TASKS if {g.name for g in t.gold} & handed}
    assert len(away) >= 30
    for r in recs:
        if r.task_id in away:
            assert r.reward == 0.0 and r.failure in {"needless_transfer", "customer_left"}
        else:
            # A refusal task fails only where it offered a transfer instead of the write the
            # customer asked for and the policy refuses.
            assert r.reward == 1.0 or r.failure in {"needless_transfer", "customer_left"}, (
                r.task_id,
                r.failure,
            )
