"""The scripted telecom customer: it acts on its phone only as told, reports what it sees, in
English and Chinese, and wants only what its scenario says."""

import json

import pytest

from evals.domains.telecom.scripted import TelecomScriptedUser
from evals.domains.telecom.scripted.phrasings import EN, ZH
from evals.engine.messages import Message, Role, Signal
from evals.engine.persona import parse_persona
from tests.evals_telecom.conftest import DOMAIN

TASKS = {t.id.split("-", 2)[2]: t for t in DOMAIN.tasks()}


def customer(name, persona="baseline", solo=False, seed=3):
    task = TASKS[name]
    return TelecomScriptedUser(
        scenario=task.scenario, persona=parse_persona(persona), seed=seed, solo=solo
    ), task


class Talk:
    def __init__(self, name, persona="baseline", solo=False):
        self.user, self.task = customer(name, persona, solo)
        self.world = DOMAIN.fresh_world(self.task.world_seed)
        self.messages = [Message.assistant("Hi! How can I help you today?")]
        self.opening = self.user.respond(self.messages)
        self.messages.append(self.opening)

    def agent(self, text):
        """The customer's reply to `text`: its words, its signal and the phone calls it made."""
        self.messages.append(Message.assistant(text))
        calls = []
        while True:
            reply = self.user.respond(self.messages)
            self.messages.append(reply)
            if not reply.tool_calls:
                return reply.content, reply.signal, calls
            for call in reply.tool_calls:
                calls.append(call.name)
                result, _ = DOMAIN.tools[call.name].invoke(self.world, call)
                self.messages.append(Message.tool(result))


def test_it_opens_with_what_it_notices_and_makes_no_call_before_it_is_asked():
    talk = Talk("restore-service-airplane-email")
    assert not talk.opening.tool_calls
    assert "no service" in talk.opening.content
    _, _, calls = talk.agent(EN["anything_else"])
    assert calls == []


def test_it_checks_only_what_it_is_asked_to_check_and_reports_it():
    talk = Talk("restore-service-airplane-email")
    text, signal, calls = talk.agent(EN["ask_checks"].format(what="the status bar"))
    assert calls == ["check_status_bar"]
    assert text == "Status bar: airplane mode. Data connection: not working."
    assert signal is Signal.NONE
    text, _, calls = talk.agent(
        EN["ask_checks"].format(what="the status bar and the network settings")
    )
    assert calls == ["check_status_bar", "check_network_settings"]
    assert "Airplane mode: on." in text


def test_it_changes_its_phone_only_when_asked_and_sees_it_work():
    talk = Talk("restore-service-airplane-email")
    steps = EN["do_steps"].format(
        steps=EN["step_airplane"] + EN["then"] + EN["step_restart"], what="the status bar"
    )
    _, _, calls = talk.agent("Your line is suspended. Please restart later.")
    assert calls == []  # no "on your phone" request: nothing is done
    text, _, calls = talk.agent(steps)
    assert calls == ["set_airplane_mode", "restart_device", "check_status_bar"]
    # The line is still suspended on the carrier's side: the phone shows it.
    assert "no service" in text and "works now" not in text


def test_the_chinese_customer_reports_its_phone_in_chinese():
    talk = Talk("roaming-abroad-phone-dob", persona="baseline,language=zh-Hans")
    assert "旅行" in talk.opening.content or "国外" in talk.opening.content
    text, _, calls = talk.agent(ZH["ask_checks"].format(what="状态栏、网络设置"))
    assert calls == ["check_status_bar", "check_network_settings"]
    expected = "状态栏：无服务。数据连接：不可用。飞行模式：关。"  # noqa: RUF001
    assert text.startswith(expected)


def test_it_takes_the_puk_from_the_agent_and_its_own_new_pin():
    talk = Talk("puk-unlock-email")
    puk = (
        DOMAIN.fresh_world(talk.task.world_seed)
        .tables["lines"][talk.task.gold[0].arguments["line_id"]]
        .puk
    )
    text, _, calls = talk.agent(
        EN["do_steps"].format(steps=EN["step_puk"].format(puk=puk), what="the status bar")
    )
    assert calls == ["unlock_sim", "check_status_bar"]
    unlock = next(
        c
        for m in talk.messages
        if m.role is Role.USER
        for c in m.tool_calls
        if c.name == "unlock_sim"
    )
    assert json.loads(unlock.arguments) == dict(talk.task.user_gold[0].arguments)
    assert ("4 bars" in text and "works now" in text.lower()) or "working now" in text


def test_a_customer_who_will_not_pay_today_declines_the_payment():
    talk = Talk("refuse-resume-without-payment-email")
    proposal = EN["proceed"].format(
        summary=EN["propose_pay"].format(
            bill_id="B1-05", period="May", amount="45.00", currency="USD", card="4242"
        )
    )
    text, signal, _ = talk.agent(proposal)
    assert "can't pay" in text and signal is Signal.NONE
    refusal = EN["refuse_pay_first"].format(
        line_id="L1", bill_id="B1-05", amount="45.00", currency="USD"
    )
    text, signal, _ = talk.agent(refusal + " " + EN["anything_else"])
    assert signal is Signal.STOP


@pytest.mark.parametrize(("name", "wanted"), [("topup-1gb-email", 1), ("topup-5gb-email", 5)])
def test_it_wants_its_own_top_up_size(name, wanted):
    talk = Talk(name)
    proposal = EN["proceed"].format(
        summary=EN["propose_topup"].format(gb=1, line_id="L1", price="10.00", currency="USD")
    )
    text, _, _ = talk.agent(proposal)
    if wanted == 1:
        assert "rather" not in text and "GB" not in text
    else:
        assert text == "I'd rather have the 5 GB top-up."


def test_in_a_solo_run_it_makes_no_call_and_takes_the_agents_word():
    talk = Talk("roaming-abroad-email", solo=True)
    _, _, calls = talk.agent(EN["ask_checks"].format(what="the status bar"))
    assert calls == []
    _, signal, _ = talk.agent(EN["works_again"] + " " + EN["anything_else"])
    assert signal is Signal.STOP


def test_a_transfer_is_accepted():
    talk = Talk("fraud-review-email")
    _, signal, _ = talk.agent(EN["transfer_fraud"].format(line_id="L1"))
    assert signal is Signal.STOP


def test_no_scenario_names_its_cause_or_a_fix():
    for task in TASKS.values():
        text = (task.scenario.prompt() + json.dumps(dict(task.scenario.data))).lower()
        for word in ("suspend", "airplane", "roaming", "apn", "overdue", "fraud", "exhausted"):
            assert word not in text, (task.id, word)
