import json

import pytest

from evals.domains import get_domain
from evals.engine.messages import ToolCall
from evals.engine.tools import Actor, ToolKind, ToolSet, tool

retail = get_domain("retail")
TOOLS = list(retail.tools)


def _world():
    return retail.fresh_world(0)


def _call(name: str, args: str) -> ToolCall:
    return ToolCall("c1", name, args)


@pytest.mark.parametrize("t", TOOLS, ids=lambda t: t.name)
def test_it_returns_an_error_for_invalid_json(t):
    result, parsed = t.invoke(_world(), _call(t.name, "{not json"))
    assert result.error and "not valid JSON" in result.content and parsed is None


@pytest.mark.parametrize("t", TOOLS, ids=lambda t: t.name)
def test_it_returns_an_error_for_an_unexpected_argument(t):
    args = {p.name: "x" for p in t.params} | {"surprise": 1}
    result, _ = t.invoke(_world(), _call(t.name, json.dumps(args)))
    assert result.error and "unexpected argument(s) surprise" in result.content


@pytest.mark.parametrize(
    "t", [t for t in TOOLS if any(p.required for p in t.params)], ids=lambda t: t.name
)
def test_it_returns_an_error_for_a_missing_argument(t):
    result, _ = t.invoke(_world(), _call(t.name, "{}"))
    assert result.error and "missing required argument" in result.content


@pytest.mark.parametrize("t", TOOLS, ids=lambda t: t.name)
def test_it_returns_an_error_for_a_wrong_type(t):
    first = t.params[0]
    args = {p.name: "x" for p in t.params if p.required}
    args[first.name] = 12345
    result, _ = t.invoke(_world(), _call(t.name, json.dumps(args)))
    assert result.error and f"argument {first.name}" in result.content


@pytest.mark.parametrize("t", TOOLS, ids=lambda t: t.name)
def test_its_schema_describes_every_parameter_for_the_model(t):
    fn = t.schema["function"]
    assert fn["name"] == t.name and fn["description"]
    assert set(fn["parameters"]["properties"]) == {p.name for p in t.params}
    assert all(p.get("description") for p in fn["parameters"]["properties"].values())


def test_an_unknown_tool_gets_an_error_listing_the_tools():
    result = retail.tools.unknown(_call("launch_rocket", "{}"))
    assert result.error and "unknown tool 'launch_rocket'" in result.content
    assert "cancel_pending_order" in result.content


def test_a_list_argument_rejects_a_non_string_item():
    t = retail.tools["return_delivered_items"]
    args = {"order_id": "#W1", "item_ids": ["1", 2], "refund_to": "gift_card"}
    result, _ = t.invoke(_world(), _call(t.name, json.dumps(args)))
    assert result.error and "item 1 must be a string" in result.content


def test_a_literal_argument_rejects_a_value_outside_the_choices():
    t = retail.tools["cancel_pending_order"]
    result, _ = t.invoke(_world(), _call(t.name, json.dumps({"order_id": "#W1", "reason": "meh"})))
    assert result.error and '"no longer needed"' in result.content


def test_a_domain_error_is_a_tool_error_not_a_crash():
    world = _world()
    delivered = next(o for o in world.tables["orders"].values() if o.status == "delivered")
    t = retail.tools["cancel_pending_order"]
    args = json.dumps({"order_id": delivered.id, "reason": "no longer needed"})
    result, parsed = t.invoke(world, _call(t.name, args))
    assert result.error and "only pending orders can be cancelled" in result.content
    assert parsed == {"order_id": delivered.id, "reason": "no longer needed"}


def test_a_successful_write_changes_the_world_and_records_a_notification():
    world = _world()
    pending = next(o for o in world.tables["orders"].values() if o.status == "pending")
    before = world.state_hash()
    t = retail.tools["cancel_pending_order"]
    result, _ = t.invoke(
        world, _call(t.name, json.dumps({"order_id": pending.id, "reason": "ordered by mistake"}))
    )
    assert not result.error
    assert world.tables["orders"][pending.id].status == "cancelled"
    assert world.backoffice.notifications[-1].reference == pending.id
    assert world.state_hash() != before
    assert retail.fresh_world(0).state_hash() == before  # the pristine world is untouched


def test_a_toolset_rejects_duplicate_names():
    @tool(kind=ToolKind.READ)
    def ping(world) -> str:
        """Ping."""
        return "pong"

    with pytest.raises(Exception, match="Duplicate tool name"):
        ToolSet([ping, ping])


def test_tools_are_tagged_read_or_write_for_the_agent():
    kinds = {t.name: t.kind for t in TOOLS}
    assert kinds["get_order"] is ToolKind.READ
    assert kinds["request_refund"] is ToolKind.WRITE
    assert all(t.actor is Actor.AGENT for t in TOOLS)
