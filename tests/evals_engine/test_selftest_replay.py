"""The self-test's gold replay and the customer that says yes (for domains without offline
models of their own, τ² retail): they pass every task, pass under a guard that requires a
lookup and a confirmation naming every argument value, carry the injected faults, and no
suite can pick them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine import faults
from evals.engine.domain import Domain
from evals.engine.errors import EngineError
from evals.engine.messages import Violation
from evals.engine.oracle import FailureClass
from evals.engine.registry import agent_factory, agent_names
from evals.engine.selftest import measure, replays_gold
from evals.engine.selftest.replay import GoldReplayAgent, replay_actions, summary
from evals.engine.tools import Confirm, ToolKind, ToolSet
from evals.engine.world import World

tau2 = get_domain("tau2_retail")
# Tasks whose published actions hold no lookup (36: writes only), the first lookup fails
# (67: a wrong name first), a transfer (50), several writes (0..3).
SAMPLE = ("0", "1", "2", "3", "36", "50", "67")


def _guarded() -> Domain:
    """τ² retail under a guard like the one its policy asks for: every account write needs
    the customer looked up by email or name and zip first (the session remembers who), and a
    confirmation whose summary shows every argument value."""

    def remembering(fn: Callable[..., Any]) -> Callable[..., Any]:
        def lookup(world: World, **kwargs: Any) -> Any:
            world.session.verified_customer_id = fn(world, **kwargs)
            return world.session.verified_customer_id

        return lookup

    tools = []
    for tool in tau2.tools:
        if tool.kind is ToolKind.WRITE and not tool.terminal:
            words = (tool.name.split("_")[0],)
            keys = tuple(p.name for p in tool.params)
            tool = dataclasses.replace(tool, confirm=Confirm(words=words, keys=keys))
        if tool.name.startswith("find_user_id_by_"):
            tool = dataclasses.replace(tool, fn=remembering(tool.fn))
        tools.append(tool)

    def authenticated(world: World, tool: str, args: Mapping[str, Any]) -> list[Violation]:
        if tool == "transfer_to_human_agents":
            return []
        order = world.tables["orders"].get(str(args.get("order_id", "")), {})
        owner = args.get("user_id") or order.get("user_id")
        if world.session.verified_customer_id != owner:
            return [Violation("not_authenticated", "Look the customer up first.")]
        return []

    return dataclasses.replace(tau2, tools=ToolSet(tools), rules=authenticated)


def test_tau2_retail_has_no_offline_models_so_the_self_test_replays_its_gold() -> None:
    assert replays_gold(tau2) and not replays_gold(get_domain("retail"))


def test_the_replay_looks_the_customer_up_when_the_published_actions_do_not() -> None:
    actions = replay_actions(tau2, tau2.task("36"))
    assert [a.name for a in actions] == [
        "find_user_id_by_email",
        "get_order_details",
        "modify_pending_order_items",
    ]
    assert actions[0].arguments == {"email": "daiki.sanchez1479@example.com"}
    # Published lookups are kept as published (a wrong name first), and no login is added.
    published = [a.name for a in replay_actions(tau2, tau2.task("67"))]
    assert published.count("find_user_id_by_name_zip") == 3
    assert "find_user_id_by_email" not in published


def test_the_summary_names_the_action_and_every_argument_value() -> None:
    call = tau2.task("36").gold[0]
    text = summary(call)
    assert "modify pending order items" in text
    for value in call.arguments.values():
        for part in value if isinstance(value, list) else [value]:
            assert str(part) in text


@pytest.mark.parametrize("guarded", [False, True])
def test_the_replay_passes_every_sampled_task_with_and_without_the_policy_guard(guarded) -> None:
    domain = _guarded() if guarded else tau2
    for task_id in SAMPLE:
        evaluation = measure.trial(domain, domain.task(task_id))
        assert evaluation.reward == 1.0, (task_id, evaluation.failure, evaluation.notes)


def test_under_a_confirmation_guard_skipping_the_confirmation_is_caught() -> None:
    domain = _guarded()
    task = domain.task("36")
    assert faults.confirmation_declared(domain, task)
    assert faults.confirmation_declared(tau2, task)  # τ² retail's own guard declares it too
    for guarded in (domain, tau2):
        evaluation = measure.trial(guarded, task, "skip_confirmation")
        assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.POLICY_VIOLATION


def test_the_replay_carries_the_faults() -> None:
    several = tau2.task("0")
    assert len(several.gold) == 1 and faults.has_other_item(tau2, several)
    wrong_item = measure.trial(tau2, several, "wrong_item")
    # Another item breaks τ²'s own exchange rule (same product), which the guard holds.
    assert wrong_item.reward == 0.0
    assert wrong_item.failure in (FailureClass.WRONG_ARGUMENTS, FailureClass.POLICY_VIOLATION)
    two = next(t for t in tau2.tasks() if faults.order_matters(tau2, t))
    assert measure.trial(tau2, two, "wrong_order").failure is FailureClass.WRONG_ORDER
    assert measure.trial(tau2, two, "stop_after_first").failure is FailureClass.OMISSION


def test_the_yes_customer_makes_its_own_writes_and_the_early_end_is_caught() -> None:
    """On τ² mock (which has offline models, so the replay is driven directly here): the
    customer does its part once the replay says it is done; ending first leaves it undone."""
    mock = get_domain("tau2_mock")
    task = mock.task("update_task_with_user_tools")
    replay_only = dataclasses.replace(mock, reference_agent=None, scripted_user=None)
    assert measure.trial(replay_only, task).reward == 1.0
    early = measure.trial(replay_only, task, "end_before_user")
    assert early.reward == 0.0 and early.failure is FailureClass.COORDINATION


def test_no_agent_name_a_suite_can_pick_reaches_the_gold_replay() -> None:
    task = tau2.task("0")
    for name in agent_names():
        try:
            agent = agent_factory(name)(domain=tau2, params={}, seed=1)
        except EngineError:
            continue  # the domain has no reference agent to build it on
        assert not isinstance(agent, GoldReplayAgent), name
    assert GoldReplayAgent(domain=tau2, task=task, fault="", seed=1).fault.value == ""


def test_the_replay_passes_every_task_of_a_domain_it_stands_in_for() -> None:
    mock = dataclasses.replace(get_domain("tau2_mock"), reference_agent=None, scripted_user=None)
    assert replays_gold(mock)
    for task in mock.tasks():
        if not task.needs_judge:
            assert measure.trial(mock, task).reward == 1.0, task.id


def test_the_replay_makes_the_lookups_a_write_less_task_requires() -> None:
    # τ² 24, 57 and 105 change nothing; each requires lookups the published gold does not
    # all make, and the replay (the self-test's reference) must pass them.
    for task_id in ("24", "57", "105"):
        task = tau2.task(task_id)
        assert task.required_reads and not task.gold
        assert measure.trial(tau2, task).reward == 1.0, task_id
