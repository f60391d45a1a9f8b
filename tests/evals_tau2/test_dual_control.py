"""Dual control in τ²'s mock domain: the customer's own side of the world and its own tools,
used by the scripted customer and by the LiteLLM user simulator; the two sides never see each
other's tool traffic; the user side judged by its env assertions; `coordination_failure`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.llm import ModelClient
from evals.engine.llm.shared import set_default_client
from evals.engine.messages import Message, Role, Signal, TerminationReason, ToolCall, Trajectory
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import MemorySink, RunSpec, plan, run, run_unit
from evals.engine.tools import Actor
from tests.support.openai_server import text, tool_call

TASK = "update_task_with_user_tools"
mock = get_domain("tau2_mock")


def _run(agent: str, task_id: str = TASK, persona: str = "baseline"):
    spec = RunSpec(domains=("tau2_mock",), task_ids=(task_id,), personas=(persona,), agent=agent)
    return run_unit(spec, plan(spec)[0])


def test_the_customer_has_its_own_side_and_tools_the_agent_cannot_see():
    assert mock.tools.names(Actor.USER) == ["check_notifications", "dismiss_notification"]
    agent_tools = {s["function"]["name"] for s in mock.tools.schemas(Actor.AGENT)}
    assert not agent_tools & {"check_notifications", "dismiss_notification"}
    task = mock.task(TASK)
    # τ²'s user-side initialisation action ran on the customer's side of the world.
    world = mock.fresh_world(task.world_seed)
    assert world.tables["user:notifications"]["notif_1"]["status"] == "unread"
    assert [a.side for a in task.assertions] == ["user"]
    assert [g.name for g in task.user_gold] == ["dismiss_notification"]
    # The customer's side is not part of the agent's state compared with the gold replay.
    before = world.state_hash()
    mock.tools["dismiss_notification"].fn(world, notification_id="notif_1")
    assert world.state_hash() == before
    assert world.user_canonical()["user:notifications"]["notif_1"]["status"] == "read"


def test_the_reference_agent_and_scripted_customer_pass_every_task_whose_scenario_names_it():
    for task in mock.tasks():
        if task.needs_judge:
            continue
        record = _run("sandbox/reference", task.id)
        assert record.reward == 1.0, (task.id, record.failure, record.notes, record.diff)


def test_the_scripted_customer_uses_its_own_tools_in_the_scenarios_order():
    record = _run("sandbox/reference")
    assert record.reward == 1.0
    messages = record.trajectory["messages"]
    user_calls = [
        c["name"] for m in messages if m["role"] == "user" for c in m.get("tool_calls", ())
    ]
    assert user_calls == ["check_notifications", "dismiss_notification"]
    assert record.user_tool_calls == 2 and record.to_dict()["user_tool_calls"] == 2
    # It dismisses only after the agent's write, and says goodbye last.
    names = [c["name"] for m in messages for c in m.get("tool_calls", ())]
    assert names.index("update_task_status") < names.index("dismiss_notification")
    assert messages[-1]["signal"] == "stop"


class _Recording:
    """Wraps a participant and keeps every view it was given."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.views: list[list[Message]] = []

    def respond(self, messages: Sequence[Message], *tools: Any) -> Message:
        self.views.append(list(messages))
        return self.inner.respond(messages, *tools)


def test_neither_side_sees_the_others_tool_traffic():
    task = mock.task(TASK)
    agent = _Recording(mock.reference_agent(domain=mock, params={}, seed=1))
    user = _Recording(
        mock.scripted_user(
            domain=mock,
            scenario=task.scenario,
            persona=parse_persona("baseline"),
            params={},
            seed=1,
        )
    )
    world = mock.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=mock,
        world=world,
        agent=agent,
        user=user,
        guard=PolicyGuard(mock.rules),
        task=task,
    ).run()
    assert evaluate(mock, task, trajectory, world).reward == 1.0
    user_ids = {c.id for m in trajectory.messages if m.role is Role.USER for c in m.tool_calls}
    agent_ids = {
        c.id for m in trajectory.messages if m.role is Role.ASSISTANT for c in m.tool_calls
    }
    assert user_ids and agent_ids
    for view in agent.views:
        assert not any(m.role is Role.USER and m.tool_calls for m in view)
        assert not any(m.role is Role.TOOL and m.tool_call_id in user_ids for m in view)
    for view in user.views:
        assert not any(m.role is Role.ASSISTANT and m.tool_calls for m in view)
        assert not any(m.role is Role.TOOL and m.tool_call_id in agent_ids for m in view)
    # The customer did see its own tool results (the notification it then talks about).
    assert any(m.role is Role.TOOL and "notif_1" in m.content for m in user.views[-1])


def _gold(task, *, user_side: bool) -> tuple[Trajectory, Any]:
    world = mock.fresh_world(task.world_seed)
    messages = [Message.system(mock.policy), Message.assistant("Hi!"), Message.user("Hello.")]
    for i, g in enumerate(task.gold):
        call = ToolCall(f"a{i}", g.name, json.dumps(dict(g.arguments)))
        messages += [
            Message.assistant("", (call,)),
            Message.tool(mock.tools[g.name].invoke(world, call)[0]),
        ]
    messages.append(Message.assistant("Done. Anything else?"))
    if user_side:
        for i, g in enumerate(task.user_gold):
            call = ToolCall(f"u{i}", g.name, json.dumps(dict(g.arguments)))
            messages += [
                Message(Role.USER, tool_calls=(call,)),
                Message.tool(mock.tools[g.name].invoke(world, call)[0]),
            ]
    messages.append(Message.user("Thanks.", Signal.STOP))
    return Trajectory(tuple(messages), (), (), TerminationReason.USER_STOP, 0, 0.0), world


def test_the_gold_trajectory_with_the_customers_part_scores_one_without_it_coordination():
    task = mock.task(TASK)
    trajectory, world = _gold(task, user_side=True)
    assert evaluate(mock, task, trajectory, world).reward == 1.0
    trajectory, world = _gold(task, user_side=False)
    evaluation = evaluate(mock, task, trajectory, world)
    assert evaluation.reward == 0.0
    assert evaluation.components["state"] == 1.0 and evaluation.components["assertions"] == 0.0
    assert evaluation.failure is FailureClass.COORDINATION
    assert any("never did its part" in n for n in evaluation.notes)


def test_the_end_before_user_fault_is_a_coordination_failure_and_only_shows_with_user_tools():
    assert EXPECTED["end_before_user"] is FailureClass.COORDINATION
    assert _run("sandbox/reference").reward == 1.0
    record = _run(agent_name("end_before_user"))
    assert record.reward == 0.0
    assert record.failure == FailureClass.COORDINATION.value
    assert record.components["state"] == 1.0  # the agent's own write was right
    assert any("ended the conversation before the customer" in n for n in record.notes)
    # Without the customer's own tools the fault changes nothing (retail: no user side).
    spec = RunSpec(domains=("retail",), split="smoke", agent=agent_name("end_before_user"))
    reference = RunSpec(domains=("retail",), split="smoke")
    for unit in plan(spec)[:2]:
        faulty, ref = run_unit(spec, unit), run_unit(reference, unit)
        assert faulty.trajectory["messages"] == ref.trajectory["messages"]


def test_an_agent_write_wrong_on_its_own_side_is_not_called_coordination():
    task = mock.task(TASK)
    world = mock.fresh_world(task.world_seed)
    call = ToolCall("a0", "update_task_status", '{"task_id": "task_1", "status": "pending"}')
    messages = (
        Message.system(mock.policy),
        Message.assistant("Hi!"),
        Message.user("Hello."),
        Message.assistant("", (call,)),
        Message.tool(mock.tools["update_task_status"].invoke(world, call)[0]),
        Message.user("Thanks.", Signal.STOP),
    )
    trajectory = Trajectory(messages, (), (), TerminationReason.USER_STOP, 0, 0.0)
    assert evaluate(mock, task, trajectory, world).failure is FailureClass.WRONG_ARGUMENTS


def test_the_customer_cannot_call_the_agents_tools():
    task = mock.task(TASK)

    class Sneaky:
        turn = 0

        def respond(self, messages: Sequence[Message]) -> Message:
            self.turn += 1
            if self.turn == 1:
                call = ToolCall(
                    "u1", "update_task_status", '{"task_id":"task_1","status":"completed"}'
                )
                return Message(Role.USER, tool_calls=(call,))
            return Message.user("Bye.", Signal.STOP)

    world = mock.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=mock,
        world=world,
        agent=mock.reference_agent(domain=mock, params={}, seed=1),
        user=Sneaky(),
        guard=PolicyGuard(mock.rules),
    ).run()
    result = trajectory.messages[3]
    assert result.role is Role.TOOL and result.error and "unknown tool" in result.content
    assert world.tables["tasks"]["task_1"]["status"] == "pending"


def _server_user(body: Mapping[str, Any]) -> Any:
    """An LLM customer following the τ² scenario with its own tools."""
    messages = body["messages"]
    names = [f["function"]["name"] for f in body.get("tools", ())]
    assert names == ["check_notifications", "dismiss_notification"]
    calls = [c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()]
    said = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")]
    if not calls:
        return tool_call("check_notifications", {})
    if not said:
        return text("Hi, I finished task_1. Please mark task_1 as completed.")
    if "dismiss_notification" not in calls and "now completed" in str(messages[-1]["content"]):
        return tool_call("dismiss_notification", {"notification_id": "notif_1"})
    if "dismiss_notification" in calls:
        return text("Thanks, that's all. ###STOP###")
    return text("Yes, please go ahead.")


def _server_agent(body: Mapping[str, Any]) -> Any:
    messages = body["messages"]
    names = {f["function"]["name"] for f in body.get("tools", ())}
    assert not names & {"check_notifications", "dismiss_notification"}
    for m in messages:  # the agent never sees the customer's own tool traffic
        for c in m.get("tool_calls") or ():
            assert c["function"]["name"] not in {"check_notifications", "dismiss_notification"}
        assert "notif_1" not in str(m.get("content"))
    done = any(m["role"] == "tool" for m in messages)
    users = [m for m in messages if m["role"] == "user"]
    if done:
        return text("task_1 is now completed.")
    if len(users) == 1:
        return text("I will mark task_1 as completed. Shall I proceed?")
    return tool_call("update_task_status", {"task_id": "task_1", "status": "completed"})


@pytest.mark.parametrize("persona", ["baseline"])
def test_the_litellm_customer_calls_its_own_tools_through_the_local_server(openai_server, persona):
    def handler(body: dict[str, Any], headers: Any) -> Any:
        return _server_user(body) if body["model"] == "mock-user" else _server_agent(body)

    openai_server.set_handler(handler)
    set_default_client(ModelClient())
    try:
        params = {"api_base": openai_server.url, "api_key": "test"}
        spec = RunSpec(
            domains=("tau2_mock",),
            task_ids=(TASK,),
            personas=(persona,),
            agent="openai/mock-agent",
            agent_params=params,
            user="openai/mock-user",
            user_params=params,
        )
        sink = MemorySink()
        run(spec, sink)
    finally:
        set_default_client(None)
    (record,) = sink.records
    assert record.reward == 1.0, (record.failure, record.notes, record.error)
    messages = record.trajectory["messages"]
    user_calls = [
        c["name"] for m in messages if m["role"] == "user" for c in m.get("tool_calls", ())
    ]
    assert user_calls == ["check_notifications", "dismiss_notification"]
    # The customer's model saw its own tool results, as tool messages after its own calls.
    last_user_request = openai_server.requests_for("mock-user")[-1]["messages"]
    assert [m["role"] for m in last_user_request].count("tool") == 2


def test_a_customer_acting_on_its_side_and_stopping_before_the_agents_write_is_a_simulator_error():
    """The fidelity rule stays: asked to confirm the agent's write, the customer dismisses
    its notification and says stop instead — the instrument failed, not the agent."""
    task = mock.task(TASK)

    class Hasty:
        turn = 0

        def respond(self, messages: Sequence[Message]) -> Message:
            self.turn += 1
            if self.turn == 1:
                return Message.user("Hello. Please mark task_1 as completed.")
            call = ToolCall("u1", "dismiss_notification", '{"notification_id": "notif_1"}')
            return Message(Role.USER, "Never mind, bye.", tool_calls=(call,), signal=Signal.STOP)

    world = mock.fresh_world(task.world_seed)
    trajectory = Orchestrator(
        domain=mock,
        world=world,
        agent=mock.reference_agent(domain=mock, params={}, seed=1),
        user=Hasty(),
        guard=PolicyGuard(mock.rules),
        task=task,
    ).run()
    assert trajectory.termination is TerminationReason.SIMULATOR_ERROR
    assert "stopped when the agent asked the go-ahead for update_task_status" in trajectory.error
    # Its own write did run on its side; the agent saw only its words.
    assert world.tables["user:notifications"]["notif_1"]["status"] == "read"
    assert evaluate(mock, task, trajectory, world).failure is FailureClass.SIMULATOR_ERROR
