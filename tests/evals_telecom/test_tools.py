"""The telecom tools: schemas for the model, clear errors for bad input, and a phone whose
state depends on both sides of the world."""

import pytest

from evals.domains.telecom.tools import TOOLS
from evals.domains.telecom.world import signal
from evals.engine.tools import Actor
from tests.evals_telecom.conftest import call, customer_of, ok, world_of
from tests.support import tool_kit


def test_every_tool_has_a_schema_and_a_docstring_and_each_side_has_reads_and_writes():
    tool_kit.assert_documented_for_the_model(TOOLS)
    assert len(TOOLS.names(Actor.AGENT)) == 13
    assert {"restart_device", "set_airplane_mode", "check_status_bar"} <= set(
        TOOLS.names(Actor.USER)
    )
    assert not set(TOOLS.names(Actor.AGENT)) & set(TOOLS.names(Actor.USER))


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("get_lines", "{not json", "not valid JSON"),
        ("get_lines", "{}", "missing required argument customer_id"),
        ("get_lines", '{"customer_id": 5}', "must be a string"),
        ("add_data_topup", '{"line_id": "L1", "gigabytes": "1"}', "must be an integer"),
        ("change_plan", '{"line_id": "L1", "new_plan_id": "gold"}', "must be one of"),
        ("set_airplane_mode", '{"on": "no"}', "must be"),
        ("transfer_to_human", '{"category": "angry", "summary": "x"}', "must be one of"),
    ],
)
def test_it_answers_malformed_arguments_with_a_tool_error(name, raw, message):
    tool_kit.assert_malformed_is_a_tool_error(TOOLS, world_of("unpaid"), name, raw, message)


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("get_lines", {"customer_id": "C000000"}, "No customer with id"),
        ("list_bills", {"customer_id": "nobody"}, "No customer with id"),
        ("resume_line", {"line_id": "L000000"}, "No line with id"),
        ("pay_bill", {"bill_id": "B0-05", "amount": "1.00", "currency": "USD"}, "No bill"),
        ("find_customer_by_email", {"email": "nobody@example.com"}, "No customer with email"),
        (
            "find_customer_by_phone",
            {"phone_number": "+1-555-0100", "date_of_birth": "12/04/1988"},
            "YYYY-MM-DD",
        ),
        ("check_app_permissions", {"app": "Radio"}, "no app called"),
    ],
)
def test_unknown_ids_get_a_clear_tool_error(name, args, message):
    result = call(world_of("unpaid"), name, **args)
    assert result.error and message in result.content


def test_wrong_statuses_and_amounts_are_refused_by_the_tools_themselves():
    world = world_of("unpaid")
    customer, line = customer_of(world)
    paid = next(b for b in world.bills_of(customer.id) if b.status == "paid")
    overdue = world.overdue_bills(customer.id)[0]
    assert (
        "already paid"
        in call(world, "pay_bill", bill_id=paid.id, amount="45.00", currency="USD").content
    )
    partial = call(world, "pay_bill", bill_id=overdue.id, amount="10.00", currency=overdue.currency)
    assert partial.error and "full amount" in partial.content
    bad = call(world, "pay_bill", bill_id=overdue.id, amount="ten", currency=overdue.currency)
    assert bad.error
    active = world_of("abroad")
    _, active_line = customer_of(active)
    assert "not suspended" in call(active, "resume_line", line_id=active_line.id).content
    unlimited = world_of("heavy")
    _, heavy_line = customer_of(unlimited)
    ok(unlimited, "change_plan", line_id=heavy_line.id, new_plan_id="unlimited")
    assert (
        "unlimited data"
        in call(unlimited, "add_data_topup", line_id=heavy_line.id, gigabytes=1).content
    )
    assert (
        "already on"
        in call(unlimited, "change_plan", line_id=heavy_line.id, new_plan_id="unlimited").content
    )
    assert "1 or 5" in call(world, "add_data_topup", line_id=line.id, gigabytes=3).content


def test_a_suspended_line_shows_no_service_until_paid_resumed_and_restarted():
    world = world_of("unpaid")
    customer, line = customer_of(world)
    assert ok(world, "check_status_bar")["signal"] == "no service"
    bill = world.overdue_bills(customer.id)[0]
    ok(
        world,
        "pay_bill",
        bill_id=bill.id,
        amount=f"{bill.amount // 100}.{bill.amount % 100:02d}",
        currency=bill.currency,
    )
    ok(world, "resume_line", line_id=line.id)
    assert signal(world) == "no service"  # the phone has not registered again
    ok(world, "restart_device")
    assert ok(world, "check_status_bar") == {
        "signal": "4 bars",
        "network": "5G",
        "mobile_data": "working",
    }


def test_airplane_mode_hides_everything_and_the_settings_say_so():
    world = world_of("unpaid-airplane")
    assert ok(world, "check_status_bar")["signal"] == "airplane mode"
    assert ok(world, "check_network_settings")["airplane_mode"] == "on"
    ok(world, "set_airplane_mode", on=False)
    assert ok(world, "check_network_settings")["airplane_mode"] == "off"


def test_abroad_the_phone_needs_roaming_on_the_account_and_data_roaming_on_the_phone():
    world = world_of("abroad")
    _, line = customer_of(world)
    assert signal(world) == "no service"
    ok(world, "set_data_roaming", on=True)
    assert signal(world) == "no service"  # the account still blocks roaming
    ok(world, "enable_roaming", line_id=line.id)
    assert ok(world, "check_status_bar") == {
        "signal": "4 bars",
        "network": "5G roaming",
        "mobile_data": "working",
    }
    assert "already enabled" in call(world, "enable_roaming", line_id=line.id).content


def test_the_sim_unlocks_only_with_the_right_puk_and_a_four_digit_pin():
    world = world_of("puk")
    _, line = customer_of(world)
    assert ok(world, "check_sim") == {"sim_status": "PUK locked"}
    assert "Wrong PUK" in call(world, "unlock_sim", puk="00000000", new_pin="2580").content
    assert "4 digits" in call(world, "unlock_sim", puk=line.puk, new_pin="25").content
    puk = ok(world, "send_puk_code", line_id=line.id)["puk"]
    ok(world, "unlock_sim", puk=puk, new_pin="2580")
    assert signal(world) == "4 bars"
    assert "not PUK locked" in call(world, "unlock_sim", puk=puk, new_pin="2580").content
    assert world.tables["lines"][line.id].puk_disclosures == 1


def test_carrier_settings_install_only_after_the_agent_sent_them():
    world = world_of("apn")
    _, line = customer_of(world)
    assert ok(world, "check_network_settings")["apn"] == "web.old"
    assert "No configuration message" in call(world, "install_carrier_settings").content
    ok(world, "push_network_settings", line_id=line.id)
    ok(world, "install_carrier_settings")
    assert ok(world, "check_status_bar")["mobile_data"] == "working"


def test_an_esim_is_added_only_with_the_code_the_agent_was_given():
    world = world_of("lost-sim")
    _, line = customer_of(world)
    assert ok(world, "check_sim") == {"sim_status": "not detected"}
    assert "not valid" in call(world, "add_esim", activation_code="LPA-00000000").content
    code = ok(world, "issue_esim", line_id=line.id)["activation_code"]
    ok(world, "add_esim", activation_code=code)
    assert signal(world) == "4 bars"


def test_the_phone_is_not_part_of_the_agent_state_hash():
    world = world_of("unpaid-airplane")
    before = world.state_hash()
    ok(world, "set_airplane_mode", on=False)
    ok(world, "restart_device")
    assert world.state_hash() == before
    assert world.user_canonical()["user:device"]["phone"]["airplane_mode"] is False


def test_a_world_without_a_phone_says_so():
    from tests.evals_telecom.conftest import DOMAIN

    world = DOMAIN.fresh_world(0)
    result = call(world, "check_status_bar")
    assert result.error and "no phone" in result.content
