"""The no-customer ablation (solo runs): the agent holds the customer's tools and the
customer only states its request. Reasoning failures remain in solo; coordination failures
disappear."""

import argparse
import json

import pytest

from evals.engine.errors import EngineError
from evals.engine.faults import agent_name
from evals.engine.messages import Message, Role, ToolCall
from evals.engine.oracle import FailureClass
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import MemorySink, RunSpec, plan, run, run_unit
from evals.engine.runner.regrade import regrade_record
from evals.engine.tools import Actor
from tests.evals_telecom.conftest import DOMAIN

TASKS = DOMAIN.tasks()
DUAL = tuple(t.id for t in TASKS if t.user_gold)
# Tasks whose problem lies (also) in the account: the wrong diagnosis never fixes them.
ACCOUNT_AT_FAULT = tuple(
    t.id
    for t in TASKS
    if t.gold
    and set(t.intents) & {"no_service", "no_data", "no_data_abroad", "sim_locked", "sim_broken"}
    and not any(g.name == "push_network_settings" for g in t.gold)
)


def records(*, solo, agent="sandbox/reference", task_ids=(), **kw):
    spec = RunSpec(domains=("telecom",), agent=agent, solo=solo, task_ids=task_ids, **kw)
    return [run_unit(spec, unit) for unit in plan(spec)]


@pytest.mark.parametrize("solo", [False, True])
def test_the_reference_agent_passes_every_task_in_both_modes(solo):
    recs = records(solo=solo)
    assert [r.task_id for r in recs if r.reward != 1.0] == []


def test_in_solo_the_agent_makes_the_phones_steps_itself_and_the_customer_makes_none():
    (rec,) = records(solo=True, task_ids=(DUAL[0],))
    messages = rec.trajectory["messages"]
    user_tools = set(DOMAIN.tools.names(Actor.USER))
    agent_calls = [
        c["name"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or ()
    ]
    assert user_tools & set(agent_calls)
    assert not any(m.get("tool_calls") for m in messages if m["role"] == "user")


def test_ending_before_the_customers_part_fails_as_coordination_in_normal_mode_only():
    normal = records(solo=False, agent=agent_name("end_before_user"), task_ids=DUAL)
    assert {r.failure for r in normal} == {FailureClass.COORDINATION.value}
    solo = records(solo=True, agent=agent_name("end_before_user"), task_ids=DUAL)
    assert [r.task_id for r in solo if r.reward != 1.0] == []


def test_a_wrong_diagnosis_fails_in_both_modes_and_never_as_coordination():
    assert len(ACCOUNT_AT_FAULT) >= 30
    for solo in (False, True):
        recs = records(
            solo=solo, agent_params={"diagnosis": "device_only"}, task_ids=ACCOUNT_AT_FAULT
        )
        assert [r.task_id for r in recs if r.reward != 0.0] == []
        assert FailureClass.COORDINATION.value not in {r.failure for r in recs}


def test_solo_is_part_of_the_run_fingerprint_and_absent_from_a_normal_one():
    normal = RunSpec(domains=("telecom",))
    solo = RunSpec(domains=("telecom",), solo=True)
    assert "solo" not in normal.fingerprint_fields()
    assert solo.fingerprint_fields()["solo"] is True
    assert normal.fingerprint() != solo.fingerprint()
    assert RunSpec.from_dict(solo.to_dict()) == solo
    assert RunSpec.from_dict({k: v for k, v in normal.to_dict().items() if k != "solo"}) == normal


def test_a_solo_run_of_a_domain_without_customer_tools_is_refused():
    with pytest.raises(EngineError, match="no customer tools"):
        plan(RunSpec(domains=("membership",), solo=True))


class _PhoneGrabber:
    """A customer that tries to use its phone's tools in a solo run."""

    def respond(self, messages):
        if not any(m.role is Role.USER for m in messages):
            return Message(Role.USER, tool_calls=(ToolCall("u1", "restart_device", "{}"),))
        return Message.user("bye")


class _Silent:
    def respond(self, messages, tools):
        self.tools = [t["function"]["name"] for t in tools]
        return Message.assistant("Goodbye.")


def test_in_solo_the_customers_own_calls_are_refused_and_the_agent_gets_its_tools():
    task = DOMAIN.task(DUAL[0])
    for solo in (False, True):
        world = DOMAIN.fresh_world(task.world_seed)
        agent = _Silent()
        trajectory = Orchestrator(
            domain=DOMAIN,
            world=world,
            agent=agent,
            user=_PhoneGrabber(),
            guard=PolicyGuard(DOMAIN.rules),
            task=task,
            solo=solo,
        ).run()
        result = next(m for m in trajectory.messages if m.role is Role.TOOL)
        assert result.error is solo
        assert ("restart_device" in agent.tools) is solo


def test_a_solo_trial_regrades_to_the_same_verdict():
    (rec,) = records(solo=True, task_ids=(DUAL[0],))
    assert regrade_record(rec).reward == rec.reward == 1.0


def test_the_command_line_and_the_suite_file_take_solo():
    from evals.engine.cli import _parser
    from evals.services.suites import SuiteFile

    args = _parser().parse_args(["run", "--domain", "telecom", "--solo"])
    assert isinstance(args, argparse.Namespace) and args.solo is True
    suite = SuiteFile.model_validate(
        {"name": "x", "trials": 1, "domains": ["telecom"], "personas": ["baseline"], "solo": True}
    )
    assert suite.solo is True


def test_pass_hat_one_normal_vs_solo_for_the_reference_and_the_coordination_faulty_agent():
    figures = {}
    for agent in ("sandbox/reference", agent_name("end_before_user")):
        for solo in (False, True):
            spec = RunSpec(domains=("telecom",), agent=agent, solo=solo, include_trajectory=False)
            figures[agent, solo] = run(spec, MemorySink(), ks=(1,)).pass_hat_strict[1].value
    assert figures["sandbox/reference", False] == figures["sandbox/reference", True] == 1.0
    assert figures[agent_name("end_before_user"), True] == 1.0
    assert figures[agent_name("end_before_user"), False] == pytest.approx(
        1 - len(DUAL) / len(TASKS)
    )
    json.dumps({f"{a}|{s}": v for (a, s), v in figures.items()})


@pytest.mark.parametrize("solo", [False, True])
def test_the_llm_customer_is_given_its_phones_tools_only_outside_solo(solo):
    from evals.engine.llm.users import litellm_user_resolver

    task = DOMAIN.task(DUAL[0])
    user = litellm_user_resolver("litellm:openai/gpt-4o-mini")(
        domain=DOMAIN,
        scenario=task.scenario,
        persona=parse_persona("baseline"),
        params={"solo": True} if solo else {},
        seed=1,
    )
    names = {t["function"]["name"] for t in user.tools}
    assert (names == set(DOMAIN.tools.names(Actor.USER))) is not solo
    assert (names == set()) is solo
