from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.oracle import FailureClass
from evals.engine.task import TaskKind
from tests.support import domain_kit as kit

membership = get_domain("membership")
TASKS = membership.tasks()


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    kit.assert_a_full_task_set(membership)
    suffixes = {
        v for t in TASKS for v in ("email", "number-dob", "wrong-dob-first") if t.id.endswith(v)
    }
    assert suffixes == {"email", "number-dob", "wrong-dob-first"}
    variants = {t.scenario.data["identity"]["gives"] for t in TASKS}
    assert variants == {"email", "number"}
    assert any(t.scenario.data["identity"]["wrong_dob"] for t in TASKS)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    kit.assert_gold_changes_the_state_unless_refused(membership, task)
    if task.kind is TaskKind.HANDOFF:
        assert task.handoff_category == "dispute"


def test_every_change_is_followed_by_a_notification_and_a_note_in_the_gold():
    for task in TASKS:
        names = [g.name for g in task.gold]
        changes = [
            n for n in names if n not in ("notify_customer", "add_note", "transfer_to_human")
        ]
        assert names.count("notify_customer") == len(changes) == names.count("add_note"), task.id


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_path_passes_the_guard_and_scores_one(task):
    email = task.scenario.data["identity"]["email"]
    agent = kit.GoldAgent(membership, task, opening=[("find_member_by_email", {"email": email})])
    kit.assert_gold_path_scores_one(
        membership, task, agent, "Hello, I need help with my membership."
    )


# -- the offline models on this domain ------------------------------------------------------


def _run(agent: str, task_id: str, persona: str = "baseline", seed: int = 0) -> Any:
    return kit.run_one("membership", agent, task_id, persona, seed=seed)


def _task(prefix: str) -> str:
    return kit.task_id(TASKS, prefix)


def test_the_reference_agent_scores_high_on_every_task_with_a_baseline_member():
    records = kit.run_every_task("membership")
    assert not [r for r in records if r.termination in ("agent_error", "infrastructure_error")]
    # Measured 1.0 (72/72) at commit time; the bound leaves room for honest regressions only.
    assert sum(r.reward for r in records) / len(records) >= 0.95
    assert all(r.reward == 1.0 for r in records if "smoke" in membership.task(r.task_id).splits)


def test_the_reference_agent_refuses_the_check_in_trap_and_says_why():
    record = _run("sandbox/reference", _task("refuse-refund-checkins-not-entitlement-email"))
    assert record.reward == 1.0
    assert "Check-ins are visit logs, not entitlements" in kit.assistant_text(record)
    assert kit.tool_arguments(record, "request_refund") == []


# One task per fault where the fault shows; each must be caught with its failure class.
# wrong_order: the membership agent checks the status before a plan change, so reversing
# "unfreeze, then upgrade" makes it refuse the upgrade itself (the membership is still frozen)
# and leave it undone: its writes are exactly the gold's unfreeze chain, the plan change and
# its notify/add_note never happen — an omission as far as the writes show (the reversed
# order is only in its words). The follow-ups sharing tool names with the unfreeze's are not
# read as wrong arguments any more.
MUTATIONS = [
    ("skip_confirmation", "upgrade-premium-email", EXPECTED["skip_confirmation"]),
    ("wrong_amount", "refund-duplicate-dues-email", EXPECTED["wrong_amount"]),
    ("wrong_item", "refund-duplicate-dues-email", EXPECTED["wrong_item"]),
    ("stop_after_first", "refund-duplicate+guest-passes-email", EXPECTED["stop_after_first"]),
    ("wrong_order", "unfreeze-then-upgrade-email", FailureClass.OMISSION),
    ("do_nothing", "freeze-two-months-email", EXPECTED["do_nothing"]),
]


@pytest.mark.parametrize(("fault", "task_prefix", "failure"), MUTATIONS)
def test_the_oracle_catches_each_injected_fault_with_its_failure_class(fault, task_prefix, failure):
    kit.assert_fault_caught("membership", fault, _task(task_prefix), failure)


def test_the_do_nothing_agent_scores_zero_on_every_task():
    assert all(r.reward == 0.0 for r in kit.run_every_task("membership", agent_name("do_nothing")))


def test_a_failed_state_comes_with_a_readable_diff():
    record = _run(agent_name("do_nothing"), _task("unfreeze-email"))
    assert any("status: expected 'active', got 'frozen'" in line for line in record.diff)


@pytest.mark.parametrize("persona", ["baseline", "confused", "angry-urgent"])
def test_the_same_seed_gives_an_identical_trajectory(persona):
    kit.assert_same_seed_same_trajectory(
        "membership", _task("waive-late-fee+cancel-with-fee-wrong-dob-first"), persona
    )


def test_different_seeds_vary_the_members_phrasing():
    task_id = _task("upgrade-premium-email")
    openings = {
        _run("sandbox/reference", task_id, seed=s).trajectory["messages"][2]["content"]
        for s in range(8)
    }
    assert len(openings) > 1


def test_a_wrong_date_of_birth_is_corrected_and_the_agent_retries():
    record = _run("sandbox/reference", _task("refund-duplicate-dues-wrong-dob-first"))
    calls = kit.tool_arguments(record, "find_member_by_number")
    assert len(calls) == 2
    assert calls[0]["date_of_birth"] != calls[1]["date_of_birth"]
    assert record.reward == 1.0


def test_importing_the_membership_domain_does_not_import_django():
    kit.assert_loads_without_django("membership")
