"""Each deterministic rule the guard runs before a membership WRITE."""

import pytest

from evals.domains.membership.rules import check_rules
from evals.domains.membership.tasks import WORLD_SEED
from evals.engine.world import RefundRequest
from tests.evals_membership.conftest import member_of


@pytest.fixture
def world(membership):
    return membership.fresh_world(WORLD_SEED)


def verified(world, profile, index=0):
    m = member_of(world, profile, index)
    world.session.verified_customer_id = m.id
    return m, world.membership_of(m.id)


def codes(world, tool, **args):
    return [v.code for v in check_rules(world, tool, args)]


def test_every_write_but_a_transfer_needs_a_verified_identity(world):
    ms = world.membership_of(member_of(world, "committed").id)
    assert codes(world, "freeze_membership", membership_id=ms.id, months=1) == [
        "identity_not_verified"
    ]
    assert codes(
        world, "notify_customer", member_id=ms.member_id, topic="freeze", reference=ms.id
    ) == ["identity_not_verified"]
    assert codes(world, "transfer_to_human", category="dispute", summary="s") == []


def test_it_forbids_acting_on_another_members_records(world):
    verified(world, "committed")
    other = world.membership_of(member_of(world, "free").id)
    assert codes(world, "cancel_membership", membership_id=other.id, fee="0.00") == ["other_member"]
    inv = world.invoices_of(other.member_id)[0]
    assert codes(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id="L1",
        amount="1.00",
        currency=inv.currency,
        reason="x",
    ) == ["other_member"]


def test_it_forbids_a_downgrade_inside_the_commitment_but_not_an_upgrade(world):
    _, ms = verified(world, "committed")
    assert codes(world, "change_plan", membership_id=ms.id, new_plan_id="basic") == [
        "downgrade_in_commitment"
    ]
    assert codes(world, "change_plan", membership_id=ms.id, new_plan_id="premium") == []


def test_it_allows_a_downgrade_after_the_commitment(world):
    _, ms = verified(world, "free")
    assert codes(world, "change_plan", membership_id=ms.id, new_plan_id="plus") == []


def test_it_forbids_a_third_freeze_in_a_year(world):
    _, ms = verified(world, "trap")
    assert codes(world, "freeze_membership", membership_id=ms.id, months=1) == ["freeze_limit"]


def test_it_forbids_freezing_a_past_due_membership(world):
    _, ms = verified(world, "late")
    assert codes(world, "freeze_membership", membership_id=ms.id, months=1) == ["status"]


def test_it_forbids_a_cancellation_inside_the_commitment_without_the_fee(world):
    from evals.domains.membership.world import cancellation_fee, money_text

    _, ms = verified(world, "committed")
    fee = money_text(cancellation_fee(ms), ms.currency)
    assert codes(
        world, "cancel_membership", membership_id=ms.id, fee="0.00" if ms.currency != "JPY" else "0"
    ) == ["cancellation_fee"]
    assert codes(world, "cancel_membership", membership_id=ms.id, fee=fee) == []


def test_it_allows_one_late_fee_waiver_in_twelve_months_and_only_of_a_late_fee(world):
    m, _ = verified(world, "late")
    inv = next(i for i in world.invoices_of(m.id) if i.status == "overdue")
    late = next(x for x in inv.lines if x.kind == "late_fee")
    dues = next(x for x in inv.lines if x.kind == "dues")
    assert codes(world, "waive_fee", invoice_id=inv.id, item_id=late.item_id, reason="r") == []
    assert codes(world, "waive_fee", invoice_id=inv.id, item_id=dues.item_id, reason="r") == [
        "not_waivable"
    ]
    m2, _ = verified(world, "late-waived")
    inv2 = next(i for i in world.invoices_of(m2.id) if i.status == "overdue")
    late2 = next(x for x in inv2.lines if x.kind == "late_fee")
    assert codes(world, "waive_fee", invoice_id=inv2.id, item_id=late2.item_id, reason="r") == [
        "waiver_limit"
    ]


def _duplicate(world, m):
    inv = next(i for i in world.invoices_of(m.id) if any(x.duplicate_of for x in i.lines))
    return inv, next(x for x in inv.lines if x.duplicate_of)


def test_it_allows_a_refund_of_a_duplicate_line_up_to_its_amount(world):
    from evals.domains.membership.world import money_text

    m, _ = verified(world, "committed")
    inv, line = _duplicate(world, m)
    full = money_text(line.amount, inv.currency)
    assert (
        codes(
            world,
            "request_refund",
            invoice_id=inv.id,
            item_id=line.item_id,
            amount=full,
            currency=inv.currency,
            reason="x",
        )
        == []
    )
    more = money_text(line.amount + 100, inv.currency)
    assert "exceeds_overcharge" in codes(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id=line.item_id,
        amount=more,
        currency=inv.currency,
        reason="x",
    )


def test_it_refuses_a_refund_of_a_correct_charge(world):
    m, _ = verified(world, "committed")
    inv, line = _duplicate(world, m)
    original = next(x for x in inv.lines if x.item_id == line.duplicate_of)
    assert "not_overcharged" in codes(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id=original.item_id,
        amount="1",
        currency=inv.currency,
        reason="x",
    )


def test_it_takes_the_currency_and_refundable_rules_from_payments_sandbox(world):
    m, _ = verified(world, "committed")
    inv, line = _duplicate(world, m)
    other = "EUR" if inv.currency != "EUR" else "USD"
    assert "currency_mismatch" in codes(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id=line.item_id,
        amount="1",
        currency=other,
        reason="x",
    )
    # A pending request reserves the overcharge: a second one is above what is left.
    world.backoffice.refund_requests.append(
        RefundRequest(f"{inv.id}/{line.item_id}", line.amount, inv.currency, "requested", "first")
    )
    assert "not_overcharged" in codes(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id=line.item_id,
        amount="1",
        currency=inv.currency,
        reason="x",
    )


def test_it_refuses_any_refund_on_an_unpaid_invoice(world):
    m, _ = verified(world, "late")
    inv = next(i for i in world.invoices_of(m.id) if i.status == "overdue")
    assert "payment_not_refundable" in codes(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id=inv.lines[0].item_id,
        amount="1",
        currency=inv.currency,
        reason="x",
    )


def test_a_class_pack_makes_a_drop_in_an_overcharge_but_check_ins_never_do(world):
    m, _ = verified(world, "free")  # paid class pack with sessions left
    inv = next(
        i for i in world.invoices_of(m.id) if any(x.kind == "class_drop_in" for x in i.lines)
    )
    line = next(x for x in inv.lines if x.kind == "class_drop_in")
    from evals.domains.membership.world import money_text

    amount = money_text(line.amount, inv.currency)
    assert (
        codes(
            world,
            "request_refund",
            invoice_id=inv.id,
            item_id=line.item_id,
            amount=amount,
            currency=inv.currency,
            reason="x",
        )
        == []
    )
    t, _ = verified(world, "trap")  # five studio-class check-ins, no class entitlement
    assert any(c.area == "studio class" for c in world.checkins_of(t.id))
    inv = next(
        i for i in world.invoices_of(t.id) if any(x.kind == "class_drop_in" for x in i.lines)
    )
    line = next(x for x in inv.lines if x.kind == "class_drop_in")
    violations = check_rules(
        world,
        "request_refund",
        {
            "invoice_id": inv.id,
            "item_id": line.item_id,
            "amount": money_text(line.amount, inv.currency),
            "currency": inv.currency,
            "reason": "x",
        },
    )
    assert [v.code for v in violations] == ["not_overcharged"]
    assert "check-ins never do" in violations[0].message
