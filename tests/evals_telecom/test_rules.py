"""Each telecom rule blocks its violation and lets the right write through."""

import pytest

from evals.domains.telecom.rules import check_rules
from tests.evals_telecom.conftest import customer_of, ok, world_of


def codes(world, tool, **args):
    return [v.code for v in check_rules(world, tool, args)]


def verified(profile, n=0):
    world = world_of(profile, n)
    customer, line = customer_of(world)
    world.session.verified_customer_id = customer.id
    return world, customer, line


def _pay_args(bill):
    return {
        "bill_id": bill.id,
        "amount": f"{bill.amount // 100}.{bill.amount % 100:02d}",
        "currency": bill.currency,
    }


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("resume_line", {"line_id": "L300101"}),
        ("enable_roaming", {"line_id": "L300101"}),
        ("pay_bill", {"bill_id": "B300101-05", "amount": "45.00", "currency": "USD"}),
        ("send_puk_code", {"line_id": "L300101"}),
    ],
)
def test_nothing_is_written_before_the_customer_is_verified(tool, args):
    assert codes(world_of("unpaid"), tool, **args) == ["identity_not_verified"]


def test_a_transfer_and_the_customers_own_phone_are_not_guarded():
    world = world_of("unpaid")
    assert codes(world, "transfer_to_human", category="dispute", summary="x") == []
    assert codes(world, "restart_device") == []


def test_only_the_verified_customers_own_lines_and_bills():
    world, _, _ = verified("unpaid", 0)
    other_world = world_of("unpaid", 1)
    other, other_line = customer_of(other_world)
    bill = world.overdue_bills(other.id)[0]
    assert codes(world, "resume_line", line_id=other_line.id) == ["other_customer"]
    assert codes(world, "pay_bill", **_pay_args(bill)) == ["other_customer"]


def test_a_line_resumes_only_once_the_overdue_bill_is_paid_in_full():
    world, customer, line = verified("unpaid")
    bill = world.overdue_bills(customer.id)[0]
    assert codes(world, "resume_line", line_id=line.id) == ["overdue_bill"]
    # A partial amount passes the rules: the tool refuses it, and an amount other than the
    # confirmed one is the confirmation rule's (wrong arguments).
    assert codes(world, "pay_bill", **{**_pay_args(bill), "amount": "10.00"}) == []
    other = "EUR" if bill.currency != "EUR" else "USD"
    assert codes(world, "pay_bill", **{**_pay_args(bill), "currency": other}) == ["wrong_currency"]
    assert codes(world, "pay_bill", **{**_pay_args(bill), "amount": "lots"}) == ["invalid_amount"]
    assert codes(world, "pay_bill", **_pay_args(bill)) == []
    ok(world, "pay_bill", **_pay_args(bill))
    assert codes(world, "pay_bill", **_pay_args(bill)) == ["already_paid"]
    assert codes(world, "resume_line", line_id=line.id) == []


def test_a_fraud_review_is_never_resumed_here():
    world, _, line = verified("fraud")
    assert codes(world, "resume_line", line_id=line.id) == ["fraud_review"]
    assert codes(world, "issue_esim", line_id=line.id) == ["fraud_review"]


def test_roaming_needs_a_plan_that_has_it_and_no_overdue_bill():
    world, _, line = verified("abroad-basic")
    assert codes(world, "enable_roaming", line_id=line.id) == ["roaming_not_on_plan"]
    ok(world, "change_plan", line_id=line.id, new_plan_id="plus")
    assert codes(world, "enable_roaming", line_id=line.id) == []
    unpaid, _, unpaid_line = verified("unpaid")
    found = codes(unpaid, "enable_roaming", line_id=unpaid_line.id)
    assert "overdue_bill" in found and "line_not_active" in found


def test_top_ups_are_one_or_five_gigabytes_on_capped_lines():
    world, _, line = verified("data-out")
    assert codes(world, "add_data_topup", line_id=line.id, gigabytes=1) == []
    assert codes(world, "add_data_topup", line_id=line.id, gigabytes=2) == ["topup_size"]
    ok(world, "change_plan", line_id=line.id, new_plan_id="unlimited")
    assert codes(world, "add_data_topup", line_id=line.id, gigabytes=1) == ["unlimited"]


def test_a_sim_is_replaced_once_in_30_days():
    world, _, line = verified("recent-sim")
    assert codes(world, "issue_esim", line_id=line.id) == ["sim_replaced_recently"]
    old, _, old_line = verified("lost-sim")
    assert codes(old, "issue_esim", line_id=old_line.id) == []
    ok(old, "issue_esim", line_id=old_line.id)
    assert codes(old, "issue_esim", line_id=old_line.id) == ["sim_replaced_recently"]


def test_unknown_records_are_left_to_the_tools_to_answer():
    world, _, _ = verified("unpaid")
    assert codes(world, "resume_line", line_id="L000000") == []
    assert codes(world, "pay_bill", bill_id="B0", amount="1.00", currency="USD") == []
