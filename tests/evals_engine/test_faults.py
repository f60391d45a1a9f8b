"""Where each injected fault applies (decided from the task and its domain alone) and that
the faulty agents carry their fault on exactly those tasks."""

from __future__ import annotations

import pytest

from evals.domains import get_domain
from evals.engine import faults
from evals.engine.oracle import Evaluation, FailureClass
from evals.engine.sandbox.agent import _other_amount, amount_argument, item_argument
from evals.engine.selftest import selftest_domain, trial
from evals.engine.selftest.measure import caught

retail = get_domain("retail")
membership = get_domain("membership")


def _task(domain, prefix: str):
    return next(t for t in domain.tasks() if t.id.split("-", 2)[2].startswith(prefix))


def _applies(fault: str, domain, prefix: str) -> bool:
    return faults.APPLIES[fault](domain, _task(domain, prefix))


def test_every_fault_declares_where_it_applies() -> None:
    assert set(faults.APPLIES) == set(faults.EXPECTED)


def test_stopping_after_the_first_write_applies_only_to_tasks_with_two_gold_writes() -> None:
    assert len(_task(retail, "cancel-email").gold) == 1
    assert not _applies("stop_after_first", retail, "cancel-email")
    assert _applies("stop_after_first", retail, "cancel+return-email")
    # One request, three writes (the change, the notification, the note): it applies.
    assert _applies("stop_after_first", membership, "upgrade-premium-email")


def test_a_wrong_order_applies_only_where_the_reversed_gold_ends_elsewhere_or_fails() -> None:
    # A cancellation and a return on two orders leave the same state in either order.
    assert not _applies("wrong_order", retail, "cancel+return-email")
    # A return then an exchange on one order: the reversed pair does not replay.
    assert _applies("wrong_order", retail, "return-then-exchange-gift-card-email")
    # An upgrade of a frozen membership fails: unfreeze first.
    assert _applies("wrong_order", membership, "unfreeze-then-upgrade-email")
    assert not _applies("wrong_order", retail, "cancel-email")


def test_amount_item_and_confirmation_faults_apply_where_a_gold_write_gives_them_a_hold() -> None:
    assert _applies("wrong_amount", retail, "damaged-partial-email")
    assert not _applies("wrong_amount", retail, "cancel-email")
    assert _applies("wrong_item", retail, "return-one-email")  # the order holds other items
    assert not _applies("wrong_item", retail, "cancel-email")  # no item argument
    assert _applies("skip_confirmation", retail, "cancel-email")
    assert not _applies("skip_confirmation", retail, "dispute-email")  # a handoff needs none


def test_ending_before_the_customer_applies_only_where_the_customer_has_writes_to_make() -> None:
    mock = get_domain("tau2_mock")
    assert [t.id for t in mock.tasks() if faults.customer_acts(mock, t)] == [
        "update_task_with_user_tools"
    ]
    assert not any(faults.customer_acts(retail, t) for t in retail.tasks())


def test_doing_nothing_applies_wherever_the_untouched_world_fails_a_component() -> None:
    assert all(faults.nothing_fails(retail, t) for t in retail.tasks())
    tau2 = get_domain("tau2_retail")
    # τ² 57 ("when does my order arrive?") changes nothing; it requires the lookups the answer
    # rests on, so an untouched conversation fails it too — doing nothing applies everywhere.
    assert "lookup" in tau2.task("57").reward_basis and tau2.task("57").required_reads
    assert all(faults.nothing_fails(tau2, t) for t in tau2.tasks())
    assert faults.nothing_fails(tau2, tau2.task("36"))  # a gold write to make


def test_the_fault_hooks_change_the_argument_the_applicability_looks_at() -> None:
    args = {"order_id": "#W1", "item_id": "111", "amount": "0.01", "note": "12.00 off"}
    assert amount_argument(args) == "amount" and item_argument(args) == "item_id"
    assert _other_amount("0.01") == "1.01" and _other_amount("12.50") == "11.50"
    exchange = {"order_id": "#W1", "item_ids": ["1"], "new_item_ids": ["2"]}
    assert item_argument(exchange) == "item_ids"
    assert amount_argument({"reason": "no longer needed"}) == ""


def test_stop_after_first_stops_after_the_first_write_of_a_request_with_follow_ups() -> None:
    task = _task(membership, "upgrade-premium-email")
    assert trial(membership, task).reward == 1.0
    evaluation = trial(membership, task, "stop_after_first")
    assert evaluation.reward == 0.0 and evaluation.failure is FailureClass.OMISSION


@pytest.mark.parametrize("domain", ["retail", "membership", "tau2_mock"])
def test_the_oracle_catches_every_applicable_fault_on_every_task(domain: str) -> None:
    results = selftest_domain(domain)
    for fault, r in results.items():
        assert r["caught"] == r["applicable"], (fault, r["missed"])
    assert results[faults.DO_NOTHING]["applicable"] == results[faults.DO_NOTHING]["tasks"]


# -- amounts in the call's currency (0, 2 or 3 decimals) ---------------------------------


def test_the_amount_fault_reads_amounts_with_the_decimals_of_the_calls_currency() -> None:
    assert amount_argument({"charge_id": "CH-1", "amount": "3200", "currency": "JPY"}) == "amount"
    assert amount_argument({"amount": "11.437", "currency": "KWD"}) == "amount"
    assert amount_argument({"refund_amount": "9.625", "currency": "BHD"}) == "refund_amount"
    # The form of another currency is not an amount of this one.
    assert amount_argument({"amount": "11.43", "currency": "KWD"}) == ""
    assert amount_argument({"amount": "3200.00", "currency": "JPY"}) == ""
    assert amount_argument({"count": 2, "currency": "JPY", "fee": "4000"}) == "fee"
    # Without a currency, the two-decimal form as before ("12.50").
    assert amount_argument({"months": "2"}) == "" and amount_argument({"fee": "1.50"}) == "fee"
    # The changed amount keeps the currency's form, so only the amount is wrong.
    assert _other_amount("3200", "JPY") == "3199" and _other_amount("11.437", "KWD") == "10.437"
    assert _other_amount("0.500", "KWD") == "1.500" and _other_amount("12.50", "EUR") == "11.50"


@pytest.mark.parametrize(
    ("domain", "task_id"),
    [
        ("billing", "billing-000-refund-partial-zero-decimals-email"),
        ("billing", "billing-007-refund-partial-three-decimals-name-postcode"),
        ("airline", "airline-000-change-standard-fare-ref-name"),
    ],
)
def test_a_wrong_amount_applies_and_is_caught_in_zero_and_three_decimal_currencies(
    domain: str, task_id: str
) -> None:
    d = get_domain(domain)
    task = d.task(task_id)
    assert {g.arguments.get("currency") for g in task.gold} & {"JPY", "KWD", "BHD"}
    assert faults.has_amount(d, task)
    assert trial(d, task).reward == 1.0
    evaluation = trial(d, task, "wrong_amount")
    assert caught(evaluation), evaluation.failure


def test_a_fault_caught_under_another_class_counts_as_caught_and_its_class_is_reported() -> None:
    # Airline's rules fix every amount: a wrong one is refused by the guard (policy
    # violation), not written with a wrong argument. The trial fails, so the oracle caught
    # the fault; the class it gave is reported, and "named" counts only the expected one.
    results = selftest_domain("airline", split="smoke")["wrong_amount"]
    assert results["applicable"] >= 2 and results["caught"] == results["applicable"]
    assert results["expected"] == "wrong_arguments"
    assert results["classes"].get("policy_violation", 0) >= 1
    assert results["named"] == results["classes"].get("wrong_arguments", 0) < results["caught"]
    assert results["sensitivity"] == 1.0
    # What is not the agent's (a simulator or infrastructure error) is never a catch.
    for failure in (FailureClass.SIMULATOR_ERROR, FailureClass.INFRASTRUCTURE):
        assert not caught(Evaluation(reward=0.0, components={}, failure=failure))
    assert caught(Evaluation(reward=0.0, components={}, failure=FailureClass.POLICY_VIOLATION))
