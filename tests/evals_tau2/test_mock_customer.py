# ruff: noqa: RUF001 -- Chinese agent messages use full-width punctuation on purpose.
"""τ² mock's offline customer knows only τ²'s user scenario (never the gold actions), reads the
agent by intent and entities whatever its wording, and the bad agents still score nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.tau2_common.data import read_json
from evals.domains.tau2_mock.scripted import MockReferenceAgent, MockScriptedUser
from evals.domains.tau2_mock.scripted.customer_phrases import PHRASES
from evals.engine.faults import agent_name
from evals.engine.fidelity import invented_facts
from evals.engine.messages import Message, Role, Signal
from evals.engine.oracle import evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import Language, parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import MemorySink, RunSpec, plan, run, run_unit
from evals.engine.task import Task
from tests.support.values import leaves

WHAT_DO_YOU_NEED = PHRASES[Language.EN]["what_do_you_need"]

mock = get_domain("tau2_mock")
# Its scenario never names its task; only τ²'s message history, which the trial continues, does.
UNNAMED = "update_task_with_message_history"


def _gold_values(task: Task) -> set[str]:
    """Every value the answer key holds: gold and customer writes, assertions, τ²'s actions."""
    raw = next(r for r in read_json("mock", "tasks.json") if r["id"] == task.id)
    criteria = raw.get("evaluation_criteria") or {}
    values = set(leaves([dict(g.arguments) for g in (*task.gold, *task.user_gold)]))
    values |= set(leaves([dict(a.arguments) for a in task.assertions]))
    values |= set(leaves([a.get("arguments") for a in criteria.get("actions") or ()]))
    return {v for v in values if v.strip()}


def _scenario_text(task: Task) -> str:
    s = task.scenario
    return " ".join((s.reason, s.known_info, s.unknown_info, s.instructions))


def test_no_value_from_the_answer_key_reaches_the_customer_unless_its_scenario_says_it():
    for task in mock.tasks():
        text = _scenario_text(task)
        data = " ".join(leaves(task.scenario.data))
        leaked = {v for v in _gold_values(task) if v in data and v not in text}
        assert not leaked, (task.id, leaked)
    # The task that the original customer named from the gold write ("Please mark task_2 as
    # completed"): its scenario never names task_2, so the customer cannot.
    unnamed = mock.task(UNNAMED)
    assert "task_2" in _gold_values(unnamed) and "task_2" not in json.dumps(unnamed.scenario.data)
    assert unnamed.scenario.data["requests"] == [
        {
            "kind": "update",
            "task_id": "",
            "status": "completed",
            "about": "The previous discussion was about creating a task.",
        }
    ]


def test_the_customers_own_writes_are_only_those_its_scenario_tells_it_to_make():
    for task in mock.tasks():
        after = task.scenario.data["after"]
        for name, args in after:
            assert name in task.scenario.reason and all(
                v in task.scenario.reason for v in args.values()
            ), task.id
    assert mock.task("update_task_with_user_tools").scenario.data["after"] == [
        ["dismiss_notification", {"notification_id": "notif_1"}]
    ]


def _customer(task_id: str, persona: str = "baseline") -> MockScriptedUser:
    task = mock.task(task_id)
    return MockScriptedUser(scenario=task.scenario, persona=parse_persona(persona), seed=3)


def _talk(user: MockScriptedUser, *agent_lines: str) -> list[Message]:
    """The customer's replies to each agent line in turn (its opening first)."""
    messages = [Message.assistant("Hello, what can I do for you?")]
    messages.append(user.respond(messages))
    out = [messages[-1]]
    for line in agent_lines:
        messages.append(Message.assistant(line))
        messages.append(user.respond(messages))
        out.append(messages[-1])
    return out


@pytest.mark.parametrize(
    ("ask", "answer"),
    [
        ("Sure. What's the ID of the task you'd like changed?", "It's task_2."),
        ("请问是哪个任务？请提供任务编号。", "It's task_2."),
        ("Which task number is it?", "It's task_2."),
    ],
)
def test_the_customer_answers_a_task_id_ask_worded_unlike_the_reference_agent(ask, answer):
    replies = _talk(_customer("update_task_with_initialization_data"), ask)
    assert replies[0].content.startswith("Hello. Please mark task_2 as completed.")
    assert replies[1].content.startswith(answer)


def test_a_customer_whose_scenario_names_no_task_says_it_does_not_know_the_id():
    replies = _talk(_customer(UNNAMED), "Could you tell me the ID of the task you want to update?")
    assert "task_" not in replies[0].content
    assert replies[1].content.startswith("I don't know its id.")


def test_the_trial_continues_taus_message_history_and_the_customer_uses_what_it_was_told():
    task = mock.task(UNNAMED)
    assert [m.role.value for m in task.history] == ["user", "assistant", "tool", "assistant"]
    assert all(c.id.startswith("history_") for m in task.history for c in m.tool_calls)
    spec = RunSpec(domains=("tau2_mock",), task_ids=(UNNAMED,), trials=1)
    record = run_unit(spec, plan(spec)[0])
    assert record.reward == 1.0, (record.failure, record.notes)
    messages = record.trajectory["messages"]
    assert messages[1]["content"] == task.history[0].content  # no greeting: the history
    told = [m["content"] for m in messages[5:] if m["role"] == "user"]
    assert any("task_2" in text for text in told), told


@pytest.mark.parametrize(
    ("proposal", "yes"),
    [
        ("Just to confirm: set task_2 to completed?", True),
        ("好的，我将把 task_2 标记为已完成，可以吗？", True),
        ("I'll mark task_1 as done. Sound good?", False),  # not the customer's task
        ("Shall I set task_2 back to pending?", False),  # not the status it asked for
    ],
)
def test_the_customer_agrees_only_to_the_proposal_it_asked_for(proposal, yes):
    reply = _talk(_customer("update_task_with_initialization_data"), proposal)[1]
    assert reply.content.startswith("Yes") is yes, reply.content
    if not yes:
        assert "Please mark task_2 as completed." in reply.content


def test_the_customer_gives_the_title_and_user_it_was_told_and_stops_once_done():
    replies = _talk(
        _customer("create_task_1"),
        "Sure — which user should own the new task, and what title would you like?",
        "Would you like me to create 'Important Meeting' for user_1?",
        "任务已创建。还有其他需要帮忙的吗？",
    )
    assert replies[1].content.startswith("It's user_1. The title is 'Important Meeting'.")
    assert replies[2].content.startswith("Yes, please.")
    assert replies[3].signal is Signal.STOP and user_finished(replies)


def user_finished(replies: Sequence[Message]) -> bool:
    return replies[-1].content.startswith("That's all")


def test_it_says_what_do_you_need_when_it_cannot_tell_and_its_patience_decides_how_long():
    patient = _talk(_customer("update_task_1"), "Let me look into that.", "Hmm.", "One moment.")
    assert all(WHAT_DO_YOU_NEED in r.content for r in patient[1:3])
    impatient = _talk(_customer("update_task_1", "impatient"), "Let me look into that.", "Hmm.")
    assert WHAT_DO_YOU_NEED in impatient[1].content
    assert impatient[2].signal is Signal.ABANDON


def test_it_does_its_own_side_when_asked_and_only_what_its_scenario_allows():
    user = _customer("update_task_with_user_tools")
    messages = [Message.assistant("Hi!")]
    first = user.respond(messages)
    assert [c.name for c in first.tool_calls] == ["check_notifications"]  # its scenario's first
    messages += [first, Message(Role.TOOL, "[]", tool_call_id=first.tool_calls[0].id)]
    assert user.respond(messages).content.startswith("Hello. Please mark task_1 as completed.")
    messages.append(Message.assistant("Could you please restart your phone?"))
    assert user.respond(messages).content.startswith("Sorry, I can't do that.")
    messages.append(Message.assistant("Please check your notification inbox and tell me."))
    check = user.respond(messages)
    assert [c.name for c in check.tool_calls] == ["check_notifications"]
    messages += [check, Message(Role.TOOL, "[]", tool_call_id=check.tool_calls[0].id)]
    assert user.respond(messages).content.startswith("I've checked my notifications.")


# -- the reference agent's logic, its words replaced --------------------------------------------

ENGLISH = [
    (
        r"I will create a task titled '(.+)' for (user_\d+)\. Shall I proceed\? \(yes/no\)",
        r"Just to double-check: a new task named '\1' for \2 — good to go?",
    ),
    (
        r"I will mark (task_\d+) as (\w+)\. Shall I proceed\? \(yes/no\)",
        r"So that's \1 switched to \2. Good to go?",
    ),
    (r"Done: I created the task '(.+)' \((task_\d+)\)\.", r"'\1' has been created for you (\2)."),
    (r"Done: (task_\d+) is now (\w+)\.", r"\1 has been updated to \2."),
    (r"Is there anything else I can help you with\?", "Anything more I can do for you today?"),
    (
        r"Which task should I mark as \w+\? Please give me its task id\.",
        "Could you tell me the ID of the task you want to update?",
    ),
    (
        r"Unfortunately I'm unable to update a task without its task id\.",
        "Without the task's ID I'm not able to change it, sorry.",
    ),
    (r"You are doing a great job keeping your tasks in order!", "Honestly, well done!"),
]
CHINESE = [
    (
        r"I will create a task titled '(.+)' for (user_\d+)\. Shall I proceed\? \(yes/no\)",
        r"确认一下：为\2新建任务「\1」，可以吗？",
    ),
    (
        r"I will mark (task_\d+) as completed\. Shall I proceed\? \(yes/no\)",
        r"好的，我将把 \1 标记为已完成，可以吗？",
    ),
    (r"Done: I created the task '(.+)' \((task_\d+)\)\.", r"已为您创建任务「\1」（\2）。"),
    (r"Done: (task_\d+) is now completed\.", r"任务\1已标记为完成。"),
    (r"Is there anything else I can help you with\?", "还有其他需要帮忙的吗？"),
    (r"Which task should I mark as \w+\? Please give me its task id\.", "请问是哪个任务？"),
    (
        r"Unfortunately I'm unable to update a task without its task id\.",
        "没有任务编号，我无法更新。",
    ),
    (r"You are doing a great job keeping your tasks in order!", "你做得很好！"),
]


class _Reworded:
    """The reference agent, every sentence it writes replaced by another wording."""

    def __init__(self, rules: Sequence[tuple[str, str]]) -> None:
        self.inner = MockReferenceAgent(domain=mock, params={}, seed=1)
        self.rules = [(re.compile(a), b) for a, b in rules]

    def respond(self, messages: Sequence[Message], tools: Any) -> Message:
        message = self.inner.respond(messages, tools)
        text = message.content
        for pattern, replacement in self.rules:
            text = pattern.sub(replacement, text)
        assert not message.content or text != message.content, message.content
        return Message.assistant(text, message.tool_calls, signal=message.signal)


@pytest.mark.parametrize("rules", [ENGLISH, CHINESE], ids=["english", "chinese"])
def test_a_reworded_reference_agent_gets_the_same_outcome_on_every_task(rules):
    for task in mock.tasks():
        if task.needs_judge:
            continue
        world = mock.fresh_world(task.world_seed)
        user = MockScriptedUser(scenario=task.scenario, persona=parse_persona("baseline"), seed=5)
        trajectory = Orchestrator(
            domain=mock,
            world=world,
            agent=_Reworded(rules),
            user=user,
            guard=PolicyGuard(mock.rules),
            task=task,
        ).run()
        evaluation = evaluate(mock, task, trajectory, world)
        assert evaluation.reward == 1.0, (task.id, evaluation.failure, trajectory.messages)


@pytest.mark.parametrize(
    "agent", ["sandbox/fault:do_nothing", agent_name("stall"), agent_name("blanket_refuser")]
)
def test_the_bad_agents_score_nothing_on_any_mock_task(agent):
    spec = RunSpec(
        domains=("tau2_mock",),
        personas=("baseline", "impatient", "skeptical", "confused"),
        agent=agent,
    )
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    assert {r.task_id for r in sink.records} == {t.id for t in mock.tasks()}
    assert [r.key for r in sink.records if r.reward >= 1.0] == []


def test_the_fidelity_check_finds_nothing_the_customer_made_up_on_any_task():
    """Its scenario data no longer whitelists the gold's ids: everything the customer says
    comes from τ²'s scenario text or from what the agent said."""
    spec = RunSpec(
        domains=("tau2_mock",), personas=("baseline", "confused"), agent="sandbox/reference"
    )
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    for record in sink.records:
        task = mock.task(record.task_id)
        messages = [
            Message(Role(m["role"]), m.get("content") or "") for m in record.trajectory["messages"]
        ]
        assert invented_facts(task.scenario, messages) == (-1, set()), record.task_id
