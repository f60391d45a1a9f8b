from functools import partial

import pytest

from evals.domains.membership.tasks import WORLD_SEED
from evals.domains.membership.tools import TOOLS
from tests.evals_membership.conftest import member_of
from tests.support import tool_kit


@pytest.fixture
def world(membership):
    return membership.fresh_world(WORLD_SEED)


call = partial(tool_kit.call, TOOLS)


ok = partial(tool_kit.ok, TOOLS)


def test_every_tool_has_a_schema_and_a_docstring_for_the_model():
    tool_kit.assert_documented_for_the_model(TOOLS)


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("get_membership", "{not json", "not valid JSON"),
        ("get_membership", "[1]", "must be a JSON object"),
        ("get_membership", "{}", "missing required argument member_id"),
        ("get_membership", '{"member_id": 5}', "must be a string"),
        ("get_membership", '{"member_id": "M1", "x": 1}', "unexpected argument"),
        ("quote_freeze", '{"membership_id": "MS1", "months": "2"}', "must be an integer"),
        ("change_plan", '{"membership_id": "MS1", "new_plan_id": "gold"}', "must be one of"),
    ],
)
def test_it_answers_malformed_arguments_with_a_tool_error(world, name, raw, message):
    tool_kit.assert_malformed_is_a_tool_error(TOOLS, world, name, raw, message)


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("get_membership", {"member_id": "M000000"}, "No member with id"),
        ("list_invoices", {"member_id": "nobody"}, "No member with id"),
        ("quote_cancellation", {"membership_id": "MS000000"}, "No membership with id"),
        (
            "waive_fee",
            {"invoice_id": "INV-0", "item_id": "L1", "reason": "x"},
            "No invoice with id",
        ),
        ("find_member_by_email", {"email": "ghost@example.com"}, "No member with email"),
        (
            "find_member_by_number",
            {"member_number": "M123456", "date_of_birth": "12/04/1988"},
            "YYYY-MM-DD",
        ),
        ("quote_freeze", {"membership_id": "MS000000", "months": 2}, "No membership"),
    ],
)
def test_it_answers_unknown_ids_with_a_clear_tool_error(world, name, args, message):
    result = call(world, name, **args)
    assert result.error
    assert message in result.content


def test_it_verifies_by_member_number_only_with_the_right_date_of_birth(world):
    m = member_of(world, "committed")
    wrong = call(world, "find_member_by_number", member_number=m.id, date_of_birth="1900-01-01")
    assert wrong.error and "No member matches" in wrong.content
    assert world.session.verified_customer_id == ""
    assert ok(
        world, "find_member_by_number", member_number=m.id, date_of_birth=m.date_of_birth
    ) == {"member_id": m.id}
    assert world.session.verified_customer_id == m.id


def test_it_verifies_by_email_case_insensitively(world):
    m = member_of(world, "free")
    assert ok(world, "find_member_by_email", email=m.email.upper())["member_id"] == m.id


def test_it_quotes_an_upgrade_pro_rated_over_the_days_left(world):
    m = member_of(world, "committed")  # Plus, 18 days left
    ms = world.membership_of(m.id)
    quote = ok(world, "quote_plan_change", membership_id=ms.id, new_plan_id="premium")
    from evals.domains.membership.world import PLANS, money_text

    expected = (PLANS["premium"].price(ms.currency) - ms.monthly_fee) * 18 // 30
    assert quote["direction"] == "upgrade"
    assert quote["prorated_charge_now"] == money_text(expected, ms.currency)
    assert quote["prorated_credit"] == money_text(0, ms.currency)


def test_an_upgrade_bills_the_proration_and_a_downgrade_credits_it(world):
    up = world.membership_of(member_of(world, "committed").id)
    out = ok(world, "change_plan", membership_id=up.id, new_plan_id="premium")
    invoice = world.invoice(out["invoice_id"])
    assert invoice.status == "open" and invoice.lines[0].kind == "proration"
    assert world.membership(up.id).plan_id == "premium"
    down = world.membership_of(member_of(world, "free").id)
    out = ok(world, "change_plan", membership_id=down.id, new_plan_id="plus")
    assert world.membership(down.id).account_credit > 0
    assert "invoice_id" not in out


def test_it_rejects_a_plan_change_of_a_frozen_membership(world):
    ms = world.membership_of(member_of(world, "frozen").id)
    result = call(world, "change_plan", membership_id=ms.id, new_plan_id="premium")
    assert result.error and "only active memberships" in result.content


def test_it_rejects_a_freeze_outside_one_to_three_months(world):
    ms = world.membership_of(member_of(world, "committed").id)
    assert (
        "1 to 3 months" in call(world, "freeze_membership", membership_id=ms.id, months=4).content
    )
    assert "1 to 3 months" in call(world, "quote_freeze", membership_id=ms.id, months=0).content


def test_a_freeze_bills_the_fee_per_month_and_counts_towards_the_year(world):
    ms = world.membership_of(member_of(world, "committed").id)
    out = ok(world, "freeze_membership", membership_id=ms.id, months=2)
    after = world.membership(ms.id)
    assert (after.status, after.freezes_this_year) == ("frozen", ms.freezes_this_year + 1)
    from evals.domains.membership.world import FREEZE_FEE

    assert world.invoice(out["invoice_id"]).total == 2 * FREEZE_FEE[ms.currency]


def test_it_rejects_a_cancellation_with_another_fee_than_the_quote(world):
    ms = world.membership_of(member_of(world, "committed").id)
    quoted = ok(world, "quote_cancellation", membership_id=ms.id)
    assert quoted["in_commitment"] is True
    result = call(world, "cancel_membership", membership_id=ms.id, fee="0.00")
    assert result.error and quoted["cancellation_fee"] in result.content
    assert world.membership(ms.id).status != "cancelled"
    ok(world, "cancel_membership", membership_id=ms.id, fee=quoted["cancellation_fee"])
    assert world.membership(ms.id).status == "cancelled"


def test_it_rejects_an_amount_that_is_not_a_decimal_string_in_the_currency(world):
    m = member_of(world, "committed", 2)  # third member of the profile
    inv = world.invoices_of(m.id)[-1]
    line = inv.lines[-1]
    result = call(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id=line.item_id,
        amount="12,50",
        currency=inv.currency,
        reason="x",
    )
    assert result.error and "is not an amount" in result.content
    result = call(
        world,
        "request_refund",
        invoice_id=inv.id,
        item_id=line.item_id,
        amount="1.00",
        currency="XXX",
        reason="x",
    )
    assert result.error and "currency" in result.content.lower()


def test_check_ins_are_listed_apart_from_entitlements(world):
    m = member_of(world, "trap")
    areas = {c["area"] for c in ok(world, "list_checkins", member_id=m.id)}
    assert "studio class" in areas
    assert [e["kind"] for e in ok(world, "list_entitlements", member_id=m.id)] == []


def test_notes_and_notifications_are_recorded_in_the_backoffice(world):
    m = member_of(world, "free")
    ok(world, "notify_customer", member_id=m.id, topic="refund", reference="INV-1")
    ok(world, "add_note", member_id=m.id, topic="refund", reference="INV-1", text="asked in chat")
    assert world.backoffice.notifications[-1].kind == "refund"
    assert world.tables["notes"][f"{m.id}/refund/INV-1"].text == "asked in chat"
    assert (
        "needs some text"
        in call(world, "add_note", member_id=m.id, topic="refund", reference="x", text=" ").content
    )


def test_a_transfer_goes_to_the_named_human_of_its_category(world):
    m = member_of(world, "late-waived")
    assert "Nadia Brooks" in ok(
        world,
        "transfer_to_human",
        category="dispute",
        summary="s",
        member_id=m.id,
        reference="INV-1",
    )
    handoff = world.backoffice.handoffs[-1]
    assert (handoff.category, handoff.customer_id) == ("dispute", m.id)
    assert call(
        world, "transfer_to_human", category="dispute", summary="s", member_id="nobody"
    ).error
