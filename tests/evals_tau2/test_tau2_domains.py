"""τ²-bench compatibility, offline: gold replay, oracle on gold and do-nothing trajectories,
and one run through the runner with LiteLLM agent and user on the local server."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evals.domains import get_domain
from evals.domains.tau2_common.data import call_tool, gold_actions, read_json
from evals.engine.errors import ToolError
from evals.engine.llm import ModelClient
from evals.engine.llm.shared import set_default_client
from evals.engine.messages import Message, Role, ToolCall, ToolResult
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.runner import MemorySink, RunSpec, plan, run
from tests.evals_tau2 import gold, tau2_conversation
from tests.support import tau2_script

DOMAINS = [("tau2_mock", "mock"), ("tau2_retail", "retail")]
# Lookups τ²'s gold trajectories make on purpose with what the customer first (wrongly) says.
EXPECTED_LOOKUP_MISSES = {
    "find_user_id_by_email",
    "find_user_id_by_name_zip",
    "get_order_details",
    "get_product_details",
}


def _raw(folder: str) -> dict[str, dict]:
    return {str(r["id"]): r for r in read_json(folder, "tasks.json")}


@pytest.mark.parametrize(("name", "folder"), DOMAINS)
def test_every_gold_write_replays_and_only_wrong_lookups_fail(name, folder):
    domain = get_domain(name)
    raws = _raw(folder)
    failed_writes = []
    for task in domain.tasks():
        world = domain.fresh_world(task.world_seed)
        for call in task.gold:
            call_tool(domain.tools, world, call.name, call.arguments)  # raises on a tool error
        world = domain.fresh_world(task.world_seed)
        for tool_name, args in gold_actions(raws[task.id]):
            try:
                call_tool(domain.tools, world, tool_name, args)
            except ToolError as exc:
                if domain.tools[tool_name].kind.value == "write":
                    failed_writes.append(task.id)
                else:
                    assert tool_name in EXPECTED_LOOKUP_MISSES, (task.id, tool_name, exc)
                    assert "not found" in str(exc)
    # Two published gold steps fail on our tools, by design, and are noted on their tasks:
    # task 64 tries an exchange on a pending order before modifying it instead (τ²'s own
    # trajectory expects that failure); task 105 pays an exchange's $21.10 difference with a
    # $17.00 gift card, which the policy forbids and our tool refuses (τ²'s data defect).
    assert failed_writes == (["64", "105"] if name == "tau2_retail" else [])
    noted = sorted(t.id for t in domain.tasks() if t.notes)
    assert noted == (["105", "64"] if name == "tau2_retail" else [])


def test_an_exchange_paid_by_a_gift_card_without_the_balance_is_refused():
    domain = get_domain("tau2_retail")
    task = domain.task("105")
    assert "Insufficient gift card balance" in task.notes[0]
    world = domain.fresh_world(task.world_seed)
    with pytest.raises(ToolError, match="Insufficient gift card balance"):
        call_tool(
            domain.tools,
            world,
            "exchange_delivered_order_items",
            {
                "order_id": "#W4316152",
                "item_ids": ["7292993796", "7292993796"],
                "new_item_ids": ["3761330360", "9647374798"],
                "payment_method_id": "gift_card_7245904",
            },
        )
    assert world.state_hash() == domain.fresh_world(task.world_seed).state_hash()


def test_the_published_task_counts_are_loaded():
    mock = get_domain("tau2_mock")
    assert len(mock.tasks()) == 10
    # The 10th is judged in prose only: planned with or without a judge (without one, its
    # trials are reported not judged, and a gate cannot pass).
    assert [t.id for t in mock.tasks() if t.needs_judge] == ["create_task_1_nl_eval"]
    assert len(plan(RunSpec(domains=("tau2_mock",)))) == 10
    assert len(plan(RunSpec(domains=("tau2_mock",), judge_model="openai/judge"))) == 10
    retail = get_domain("tau2_retail")
    assert len(retail.tasks()) == 114
    assert len(retail.tasks("test")) == 40 and len(retail.tasks("train")) == 74


@pytest.mark.parametrize(("name", "folder"), DOMAINS)
def test_the_gold_played_through_the_guard_scores_one_without_a_violation(name, folder):
    domain = get_domain(name)
    for task in domain.tasks():
        trajectory, world = gold.play(domain, task)
        evaluation = evaluate(domain, task, trajectory, world)
        assert evaluation.reward == 1.0, (task.id, evaluation.notes, evaluation.diff)
        assert all(v.ok for v in trajectory.verdicts), task.id


@pytest.mark.parametrize(("name", "folder"), DOMAINS)
def test_doing_nothing_scores_zero_on_every_task(name, folder):
    domain = get_domain(name)
    scored = 0
    for task in domain.tasks():
        if task.needs_judge:
            continue  # judged in prose only: without a judge it is not judged at all
        evaluation = evaluate(domain, task, *gold.idle(domain, task))
        assert evaluation.reward == 0.0, (task.id, evaluation.components)
        scored += 1
    assert scored == (9 if name == "tau2_mock" else 114)


def test_the_write_less_retail_tasks_fail_doing_nothing_on_the_lookups_they_require():
    domain = get_domain("tau2_retail")
    write_less = sorted((t.id for t in domain.tasks() if not t.gold), key=int)
    assert write_less == ["24", "25", "57", "62", "65", "67", "68", "105"]
    for task_id in write_less:
        task = domain.task(task_id)
        assert "lookup" in task.reward_basis
        # The customer's authentication, by either lookup, then the records.
        assert [a.name for a in task.required_reads[0]] == [
            "find_user_id_by_email",
            "find_user_id_by_name_zip",
        ]
        assert {a.name for entry in task.required_reads[1:] for a in entry} <= {
            "get_user_details",
            "get_order_details",
            "get_product_details",
        }
        evaluation = evaluate(domain, task, *gold.idle(domain, task))
        assert evaluation.components == {"state": 1.0, "lookup": 0.0, "policy": 1.0}
        assert evaluation.failure is FailureClass.OMISSION
    # From τ²'s gold reads where they say what decides; named where they do not.
    assert [dict(e[0].arguments) for e in domain.task("65").required_reads[1:]] == [
        {"user_id": "james_kovacs_9247"},
        {"order_id": "#W5362037"},
    ]
    assert [dict(e[0].arguments) for e in domain.task("25").required_reads[1:]] == [
        {"user_id": "isabella_johansson_2152"},
        {"order_id": "#W5565470"},
    ]


def test_a_lookup_that_found_nothing_does_not_count():
    domain = get_domain("tau2_retail")
    task = domain.task("57")
    trajectory, world = gold.play(domain, task)
    wrong = [
        Message.assistant("", (ToolCall("w", "get_order_details", '{"order_id": "#W4284542"}'),)),
        Message.tool(ToolResult("w", "get_order_details", "Error: Order not found", error=True)),
    ]
    without = [m for m in trajectory.messages if "get_order_details" not in str(m.tool_calls)]
    without = [m for m in without if not (m.role is Role.TOOL and m.name == "get_order_details")]
    failed = replace(trajectory, messages=(*without, *wrong))
    assert evaluate(domain, task, failed, world).components["lookup"] == 0.0
    assert evaluate(domain, task, trajectory, world).components["lookup"] == 1.0


def test_a_run_with_litellm_agent_and_user_on_the_local_server_passes_every_mock_task(
    openai_server,
):
    openai_server.set_handler(tau2_conversation.handler)
    set_default_client(ModelClient())
    try:
        params = {"api_base": openai_server.url, "api_key": "test"}
        # The stub LLMs key a conversation on its first customer message, so they cannot play
        # the tasks that continue τ²'s message history (the offline models do).
        judged_by_state = tuple(
            t.id for t in get_domain("tau2_mock").tasks() if not t.needs_judge and not t.history
        )
        spec = RunSpec(
            domains=("tau2_mock",),
            task_ids=judged_by_state,
            trials=2,
            agent="openai/tau2-agent",
            agent_params=params,
            user="openai/tau2-user",
            user_params=params,
        )
        sink = MemorySink()
        report = run(spec, sink, workers=4, ks=(1, 2))
    finally:
        set_default_client(None)
    assert len(sink.records) == 14
    assert all(r.reward == 1.0 for r in sink.records), [
        (r.task_id, r.termination, r.diff, r.error) for r in sink.records if r.reward != 1.0
    ]
    usage = sink.records[0].usage
    assert usage["agent.calls"] >= 2 and usage["user.calls"] >= 1
    # Shaped like a τ² conversation (bench/tau2_harness.py runs the same): about ten LLM
    # calls per trial, as counted by the model client, and the customer's own tool calls.
    calls = [r.usage["agent.calls"] + r.usage["user.calls"] for r in sink.records]
    assert 9.5 <= sum(calls) / len(calls) <= 10.5
    assert {r.task_id: r.user_tool_calls for r in sink.records}["update_task_with_user_tools"] == 2
    # The models as the provider resolved them (the server answers with the name it got).
    assert {tuple(sorted(r.models.items())) for r in sink.records} == {
        (("agent", "tau2-agent"), ("user", "tau2-user"))
    }
    assert report is not None


# Every retail write tool, the eight write-less tasks, the two published gold steps our tools
# refuse (64, 105), the one sharing its opening with another (67/68) and the long ones that
# once ran out of tool steps (4, 30).
SCRIPTED_RETAIL = [
    "0",
    "2",
    "3",
    "4",
    "10",
    "16",
    "17",
    "22",
    "23",
    "24",
    "25",
    "30",
    "40",
    "57",
    "62",
    "64",
    "65",
    "67",
    "68",
    "70",
    "105",
]


def test_the_scripted_llm_agent_authenticates_and_asks_before_each_write_and_passes(
    openai_server,
):
    openai_server.set_handler(tau2_script.handler)
    set_default_client(ModelClient())
    params = {"api_base": openai_server.url, "api_key": "test"}
    records = []
    try:
        mock_by_state = [
            t.id for t in get_domain("tau2_mock").tasks() if not t.needs_judge and not t.history
        ]
        for name, task_ids in (("tau2_mock", mock_by_state), ("tau2_retail", SCRIPTED_RETAIL)):
            spec = RunSpec(
                domains=(name,),
                task_ids=tuple(task_ids),
                agent="openai/tau2-agent",
                agent_params=params,
                user="openai/tau2-user",
                user_params=params,
                include_trajectory=True,
            )
            sink = MemorySink()
            run(spec, sink, workers=4)
            records += sink.records
    finally:
        set_default_client(None)
    assert len(records) == 7 + len(SCRIPTED_RETAIL)
    # Without a judge, a task with prose assertions that passes every deterministic check is
    # "not judged", never a pass; every other task passes.
    prose = {t.id for t in get_domain("tau2_retail").tasks() if t.judged_in_prose}
    assert all(
        r.reward == 1.0 if r.task_id not in prose else r.failure == "not_judged" for r in records
    ), [(r.task_id, r.failure, r.notes) for r in records if r.reward != 1.0]
    # In enforce mode, through the guard: every write authenticated and confirmed.
    verdicts = [v for r in records for v in r.trajectory["verdicts"]]
    assert len(verdicts) > len(records) and all(not v["violations"] for v in verdicts)
