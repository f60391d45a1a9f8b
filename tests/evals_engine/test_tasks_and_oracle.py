from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.oracle import FailureClass, replay
from evals.engine.task import TaskKind
from tests.support import domain_kit as kit

retail = get_domain("retail")
TASKS = retail.tasks()


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    kit.assert_a_full_task_set(retail, compounds=1)
    assert {"email", "name-zip", "order-unknown"} <= {
        t.id.rsplit("-", 1)[-1].replace("zip", "name-zip").replace("unknown", "order-unknown")
        for t in TASKS
    }


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    kit.assert_gold_changes_the_state_unless_refused(retail, task)


def test_a_gold_replay_never_touches_the_pristine_world():
    task = TASKS[0]
    before = retail.build_world(task.world_seed).state_hash()
    replay(retail, task.gold, retail.fresh_world(task.world_seed))
    assert retail.build_world(task.world_seed).state_hash() == before


def _run(agent: str, task_id: str) -> Any:
    return kit.run_one("retail", agent, task_id)


def _task(prefix: str) -> str:
    return kit.task_id(TASKS, prefix)


def test_the_reference_agent_passes_the_smoke_split_with_a_baseline_customer():
    for task in retail.tasks("smoke"):
        record = _run("sandbox/reference", task.id)
        assert record.reward == 1.0, (task.id, record.failure, record.diff)


# One task per fault where the fault shows; each must be caught with its failure class.
MUTATIONS = [
    ("skip_confirmation", "cancel-email"),
    ("wrong_amount", "damaged-partial-email"),
    ("wrong_item", "return-one-email"),
    ("stop_after_first", "cancel+return-email"),
    ("wrong_order", "return-then-exchange-gift-card-email"),
    ("do_nothing", "exchange-email"),
]


@pytest.mark.parametrize(("fault", "task_prefix"), MUTATIONS)
def test_the_oracle_catches_each_injected_fault_with_its_failure_class(fault, task_prefix):
    kit.assert_fault_caught("retail", fault, _task(task_prefix), EXPECTED[fault])


def test_the_do_nothing_agent_scores_zero_on_every_task():
    records = kit.run_every_task("retail", agent_name("do_nothing"))
    assert all(r.reward == 0.0 for r in records)
    kinds = {t.id: t.kind for t in TASKS}
    for r in records:
        refusal = kinds[r.task_id] is TaskKind.REFUSAL
        expected = FailureClass.UNCHECKED_REFUSAL if refusal else FailureClass.OMISSION
        assert r.failure == expected.value, (r.task_id, r.failure)


def test_a_failed_state_comes_with_a_readable_diff():
    record = _run(agent_name("do_nothing"), _task("cancel-email"))
    assert any("status: expected 'cancelled', got 'pending'" in line for line in record.diff)
