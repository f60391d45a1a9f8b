"""The LiteLLM user simulator and the python: agent adapter."""

from __future__ import annotations

import pytest

from evals.engine.errors import InfrastructureError
from evals.engine.llm import ModelClient
from evals.engine.llm.fidelity import unsupported_facts
from evals.engine.llm.users import litellm_user_resolver
from evals.engine.messages import Message, Signal
from evals.engine.persona import parse_persona
from evals.engine.registry import agent_factory
from evals.engine.task import Scenario
from tests.support.openai_server import text

SCENARIO = Scenario(
    reason="Cancel order #W1234567, it was ordered by mistake.",
    known_info="You are Ana Diaz, zip 12345.",
)


def respond(messages, tools):
    return {"content": f"{len(messages)} messages, {len(tools)} tools"}


def _user(server, **params):
    from evals.engine.llm.shared import set_default_client

    set_default_client(ModelClient())
    factory = litellm_user_resolver("openai/sim")
    return factory(
        domain=None,
        scenario=SCENARIO,
        persona=parse_persona("impatient"),
        params={"api_base": server.url, "api_key": "t", **params},
        seed=1,
    )


def test_the_user_sees_roles_flipped_and_never_tool_traffic(openai_server):
    openai_server.script("sim", text("Thanks! ###STOP###"))
    view = [
        Message.assistant("Hi! How can I help?"),
        Message.user("Cancel #W1234567"),
        Message.assistant("Done, it is cancelled."),
    ]
    reply = _user(openai_server).respond(view)
    assert reply.content == "Thanks!" and reply.signal is Signal.STOP
    sent = openai_server.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert "#W1234567" in sent[0]["content"] and "impatience high" in sent[0]["content"]


def test_an_invented_order_number_is_resampled_then_a_simulator_error(openai_server):
    openai_server.script(
        "sim", text("My order is #W9999999"), text("It is #W8888888"), text("Still #W7777777")
    )
    user = _user(openai_server)
    with pytest.raises(InfrastructureError, match="absent from its scenario"):
        user.respond([Message.assistant("Which order?")])
    assert len(openai_server.requests) == 3 and user.usage()["fidelity_flags"] == 3


def test_a_faithful_resample_is_accepted(openai_server):
    openai_server.script("sim", text("Order #W5555555"), text("Order #W1234567 please"))
    reply = _user(openai_server).respond([Message.assistant("Which order?")])
    assert reply.content == "Order #W1234567 please"


def test_facts_said_by_the_agent_or_in_the_scenario_are_supported():
    seen = SCENARIO.prompt() + "\nYour refund is $54.84 to credit_card_111"
    assert unsupported_facts("Ana Diaz here, refund $54.84 to credit_card_111", seen) == set()
    assert unsupported_facts("my name is Bob Stone, 3 items", seen) == {"bob stone"}


def test_a_python_callable_agent_gets_openai_dicts_and_may_return_a_dict():
    agent = agent_factory("python:tests.evals_llm.test_adapters:respond")(
        domain=None, params={}, seed=0
    )
    reply = agent.respond([Message.system("p"), Message.user("hi")], [{"type": "function"}])
    assert reply == Message.assistant("2 messages, 1 tools")
