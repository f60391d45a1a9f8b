"""The shared domain test kit (tests/support/domain_kit.py, tool_kit.py) can fail: each check
is shown to catch the cheat it exists for, so a domain's test passing through it means
something."""

from dataclasses import replace

import pytest

from evals.domains import get_domain
from evals.engine.task import GoldCall, TaskKind
from evals.engine.tools import ToolKind, ToolSet, tool
from tests.support import tool_kit
from tests.support.domain_kit import (
    GoldAgent,
    assert_gold_changes_the_state_unless_refused,
    assert_gold_path_scores_one,
    task_id,
)

membership = get_domain("membership")
TASKS = membership.tasks()
HELLO = "Hello, I need help with my membership."


def _opening(task):
    return [("find_member_by_email", {"email": task.scenario.data["identity"]["email"]})]


def _first(kind: TaskKind):
    return next(t for t in TASKS if t.kind is kind and t.required_reads)


def test_the_gold_agent_passes_on_the_gold_path():
    task = _first(TaskKind.ACTION)
    assert_gold_path_scores_one(
        membership, task, GoldAgent(membership, task, opening=_opening(task)), HELLO
    )


def test_a_gold_agent_that_skips_the_identity_check_is_caught_by_the_guard():
    task = _first(TaskKind.ACTION)
    with pytest.raises(AssertionError):
        assert_gold_path_scores_one(
            membership, task, GoldAgent(membership, task, opening=[]), HELLO
        )


def test_a_gold_agent_that_never_asks_for_confirmation_is_caught():
    task = next(t for t in TASKS if t.gold and membership.tools[t.gold[0].name].confirm)
    agent = GoldAgent(membership, task, opening=_opening(task))
    agent.awaiting = True  # as if it had asked: it writes without a yes
    with pytest.raises(AssertionError):
        assert_gold_path_scores_one(membership, task, agent, HELLO)


def test_a_rehearsal_before_each_write_is_made_once_per_write():
    task = _first(TaskKind.ACTION)
    read = task.required_reads[0][0]
    seen: list[str] = []

    def before(write: GoldCall):
        seen.append(write.name)
        return [(read.name, read.arguments)]

    agent = GoldAgent(membership, task, opening=_opening(task), before=before)
    assert_gold_path_scores_one(membership, task, agent, HELLO)
    assert seen == [g.name for g in task.gold]


def test_a_refusal_whose_gold_writes_or_an_action_that_writes_nothing_is_caught():
    refusal = _first(TaskKind.REFUSAL)
    action = _first(TaskKind.ACTION)
    with pytest.raises(AssertionError):
        assert_gold_changes_the_state_unless_refused(
            membership, replace(refusal, id="t-refusal-with-gold", gold=action.gold)
        )
    with pytest.raises(AssertionError):
        assert_gold_changes_the_state_unless_refused(
            membership, replace(action, id="t-action-without-gold", gold=())
        )
    with pytest.raises(AssertionError):  # a refusal the agent is not told to say
        assert_gold_changes_the_state_unless_refused(
            membership, replace(refusal, id="t-silent-refusal", communicate=())
        )


def test_a_task_prefix_matches_the_name_and_variant_not_the_domain():
    assert task_id(TASKS, "upgrade-premium-email").endswith("-upgrade-premium-email")
    with pytest.raises(StopIteration):
        task_id(TASKS, "membership")


@tool(kind=ToolKind.READ)
def undocumented(world: object, x: str) -> str:
    """A tool whose argument has no Args: line for the model."""
    return x


def test_a_tool_the_model_cannot_read_about_or_a_wrong_error_is_caught():
    tools = ToolSet([undocumented])
    with pytest.raises(AssertionError):
        tool_kit.assert_documented_for_the_model(tools)
    tool_kit.assert_malformed_is_a_tool_error(tools, None, "undocumented", "{", "not valid JSON")
    with pytest.raises(AssertionError):
        tool_kit.assert_malformed_is_a_tool_error(tools, None, "undocumented", "{", "other words")
    with pytest.raises(AssertionError):  # a call that succeeds is no error
        tool_kit.err(tools, None, "undocumented", x="a")
    with pytest.raises(AssertionError):
        tool_kit.ok(tools, None, "undocumented", y="a")
