"""The billing task generator, the gold path, the reference agent and the oracle's verdicts
on injected faults."""

from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.faults import EXPECTED, agent_name
from evals.engine.task import GoldCall, TaskKind
from tests.support import domain_kit as kit

billing = get_domain("billing")
TASKS = billing.tasks()


def test_the_generator_gives_at_least_60_tasks_of_every_kind_and_a_smoke_split_of_5():
    smoke = kit.assert_a_full_task_set(billing)
    assert {TaskKind.ACTION, TaskKind.REFUSAL} <= {t.kind for t in smoke}
    suffixes = {
        v
        for t in TASKS
        for v in ("email", "name-postcode", "wrong-postcode-first")
        if t.id.endswith(v)
    }
    assert suffixes == {"email", "name-postcode", "wrong-postcode-first"}


def test_refunds_come_in_zero_two_and_three_decimal_currencies_and_both_modes():
    refunds = [g.arguments for t in TASKS for g in t.gold if g.name == "request_refund"]
    decimals = {len(a["amount"].partition(".")[2]) for a in refunds}
    assert decimals == {0, 2, 3}
    assert {a["currency"] for a in refunds} == {"JPY", "EUR", "USD", "KWD", "BHD"}
    assert {a["mode"] for a in refunds} == {"live", "sandbox"}
    assert {a["approver"] for a in refunds} == {"Nadia Brooks", "Tom Becker"}
    # A partial refund: less than the charge the customer names.
    partial = [
        t
        for t in TASKS
        for g in t.gold
        if g.name == "request_refund"
        and t.scenario.data["requests"][0].get("refund")
        != t.scenario.data["requests"][0].get("amount")
    ]
    assert partial


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_replay_changes_the_state_unless_the_task_is_a_refusal(task):
    kit.assert_gold_changes_the_state_unless_refused(billing, task)


def test_a_repeated_refund_has_exactly_one_request_in_the_gold():
    for task in TASKS:
        if "repeat" in task.intents:
            assert [g.name for g in task.gold] == ["request_refund"], task.id


def _rehearsal(write: GoldCall) -> list[tuple[str, dict[str, Any]]]:
    """Each refund is rehearsed in the sandbox first, as the policy asks."""
    if write.name != "request_refund":
        return []
    keys = ("charge_id", "amount", "currency", "mode")
    return [("rehearse_refund", {k: write.arguments[k] for k in keys})]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_gold_path_passes_the_guard_and_scores_one(task):
    email = task.scenario.data["identity"]["email"]
    # The last alternative of each read: get_charge by id (the gold agent knows it; a search
    # needs facts).
    agent = kit.GoldAgent(
        billing,
        task,
        opening=[("find_customer_by_email", {"email": email})],
        read=-1,
        before=_rehearsal,
    )
    kit.assert_gold_path_scores_one(billing, task, agent, "Hello, I need help with a charge.")


# -- the offline models on this domain ------------------------------------------------------


def _run(agent: str, task_id: str, persona: str = "baseline", seed: int = 0) -> Any:
    return kit.run_one("billing", agent, task_id, persona, seed=seed)


def _task(name: str) -> str:
    return kit.task_id(TASKS, name)


def test_the_reference_agent_passes_every_task_with_a_baseline_customer():
    records = kit.run_every_task("billing")
    # Measured 1.0 (60/60) at commit time.
    assert [r.task_id for r in records if r.reward < 1.0] == []


def test_the_reference_agent_rehearses_then_names_the_approver_and_the_time():
    record = _run("sandbox/reference", _task("refund-partial-three-decimals-email"))
    assert record.reward == 1.0
    names = [c["name"] for m in record.trajectory["messages"] for c in m.get("tool_calls", ())]
    assert names.index("rehearse_refund") < names.index("request_refund")
    (request,) = kit.tool_arguments(record, "request_refund")
    assert len(request["amount"].partition(".")[2]) == 3
    texts = kit.assistant_text(record)
    assert "Nadia Brooks" in texts and "2 business days" in texts


def test_a_repeated_request_in_the_same_conversation_creates_one_refund():
    record = _run("sandbox/reference", _task("refund-then-repeat-email"))
    assert record.reward == 1.0
    assert len(kit.tool_arguments(record, "request_refund")) == 1
    assert "creates no second refund" in kit.assistant_text(record)


MUTATIONS = [
    ("skip_confirmation", "refund-partial-two-decimals-email"),
    ("wrong_amount", "refund-partial-two-decimals-email"),
    ("stop_after_first", "two-charges-email"),
    ("do_nothing", "refund-partial-zero-decimals-email"),
]


@pytest.mark.parametrize(("fault", "task_prefix"), MUTATIONS)
def test_the_oracle_catches_each_injected_fault_with_its_failure_class(fault, task_prefix):
    kit.assert_fault_caught("billing", fault, _task(task_prefix), EXPECTED[fault])


def test_the_do_nothing_agent_and_the_blanket_refuser_score_zero_on_every_task():
    for agent in (agent_name("do_nothing"), "sandbox/adversary:blanket_refuser"):
        records = kit.run_every_task("billing", agent)
        assert [r.task_id for r in records if r.reward > 0.0] == [], agent


@pytest.mark.parametrize("persona", ["baseline", "confused", "angry-urgent"])
def test_the_same_seed_gives_an_identical_trajectory(persona):
    kit.assert_same_seed_same_trajectory(
        "billing", _task("refund+update-email-wrong-postcode-first"), persona
    )


def test_a_wrong_postcode_is_corrected_and_the_agent_retries():
    record = _run("sandbox/reference", _task("refund-partial-zero-decimals-wrong-postcode-first"))
    calls = kit.tool_arguments(record, "find_customer_by_name")
    assert len(calls) == 2 and calls[0]["postcode"] != calls[1]["postcode"]
    assert record.reward == 1.0


def test_importing_the_billing_domain_does_not_import_django():
    kit.assert_loads_without_django("billing")
