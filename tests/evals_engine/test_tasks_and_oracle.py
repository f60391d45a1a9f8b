import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.oracle import FailureClass, gold_state, replay
from evals.engine.runner import RunSpec, plan, run_unit
from evals.engine.task import TaskKind

retail = get_domain("retail")
TASKS = retail.tasks()


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    assert len(TASKS) >= 60
    assert {t.kind for t in TASKS} == {TaskKind.ACTION, TaskKind.REFUSAL, TaskKind.HANDOFF}
    assert len(retail.tasks("smoke")) == 5
    assert any(len(t.intents) >= 2 for t in TASKS)
    assert {"email", "name-zip", "order-unknown"} <= {
        t.id.rsplit("-", 1)[-1].replace("zip", "name-zip").replace("unknown", "order-unknown")
        for t in TASKS
    }


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    pristine = retail.fresh_world(task.world_seed).state_hash()
    changed = gold_state(retail, task).hash != pristine
    assert changed is (task.kind is not TaskKind.REFUSAL)
    if task.kind is TaskKind.REFUSAL:
        assert task.communicate, "a refusal must be communicated"


def test_a_gold_replay_never_touches_the_pristine_world():
    task = TASKS[0]
    before = retail.build_world(task.world_seed).state_hash()
    replay(retail, task.gold, retail.fresh_world(task.world_seed))
    assert retail.build_world(task.world_seed).state_hash() == before


def _run(agent: str, task_id: str, persona: str = "baseline", trial: int = 0):
    spec = RunSpec(
        domains=("retail",), agent=agent, task_ids=(task_id,), personas=(persona,), trials=trial + 1
    )
    return run_unit(spec, plan(spec)[trial])


def _task(prefix: str) -> str:
    return next(t.id for t in TASKS if t.id.split("-", 2)[2].startswith(prefix))


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
    task_id = _task(task_prefix)
    assert _run("sandbox/reference", task_id).reward == 1.0
    record = _run(agent_name(fault), task_id)
    assert record.reward == 0.0
    assert record.failure == EXPECTED[fault].value


def test_the_do_nothing_agent_scores_zero_on_every_task():
    spec = RunSpec(domains=("retail",), agent=agent_name("do_nothing"), include_trajectory=False)
    records = [run_unit(spec, u) for u in plan(spec)]
    assert len(records) == len(TASKS)
    assert all(r.reward == 0.0 for r in records)
    kinds = {t.id: t.kind for t in TASKS}
    for r in records:
        refusal = kinds[r.task_id] is TaskKind.REFUSAL
        expected = FailureClass.UNCHECKED_REFUSAL if refusal else FailureClass.OMISSION
        assert r.failure == expected.value, (r.task_id, r.failure)


def test_a_failed_state_comes_with_a_readable_diff():
    record = _run(agent_name("do_nothing"), _task("cancel-email"))
    assert any("status: expected 'cancelled', got 'pending'" in line for line in record.diff)
