"""The engine bases the domains' scripted agents and customers share (sandbox/desk.py,
sandbox/request_user.py, sandbox/vocab.py): what each promises, tested through the domains
that use it. The actors: a caller asking for a wording the domain does not have, a customer
who gives its facts before naming its request or talks about two charges at once, an agent
that refuses without a reason while the customer's yes is pending, and a confused customer
mistyping its date of birth."""

from __future__ import annotations

import re
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.airline.scripted import AirlineReferenceAgent
from evals.domains.airline.scripted.phrasings import PHRASINGS as AIRLINE_WORDS
from evals.domains.billing.scripted import BillingReferenceAgent
from evals.domains.billing.scripted.agent import Req as BillingReq
from evals.domains.clinic_admin.scripted import ClinicReferenceAgent
from evals.domains.clinic_admin.scripted.agent import Req as ClinicReq
from evals.domains.membership.scripted import MembershipScriptedUser
from evals.domains.retail.scripted import RetailReferenceAgent
from evals.engine.errors import EngineError
from evals.engine.messages import Signal
from evals.engine.persona import parse_persona
from evals.engine.sandbox.desk import DeskAgent, tool_data
from evals.engine.sandbox.request_user import dob_slip
from evals.engine.sandbox.vocab import REFUSAL_CUE, first_match
from evals.engine.task import TaskKind

DESKS: dict[str, type[DeskAgent[Any]]] = {
    "airline": AirlineReferenceAgent,
    "billing": BillingReferenceAgent,
    "clinic_admin": ClinicReferenceAgent,
    "retail": RetailReferenceAgent,
}


def _desk(name: str, **params: str) -> Any:
    return DESKS[name](domain=get_domain(name), params=params, seed=1)


# -- wording ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(DESKS))
def test_it_rejects_a_phrasing_the_domain_does_not_have_naming_the_ones_it_has(name):
    with pytest.raises(EngineError) as error:
        _desk(name, phrasing="fr")
    assert f"Unknown {name} phrasing 'fr'" in str(error.value)
    assert "en, " in str(error.value) and "zh" in str(error.value)


def test_an_explicit_phrasing_is_spoken_whatever_the_customer_writes():
    agent = _desk("airline", phrasing="zh")
    assert agent.zh
    assert agent.t("anything_else") == AIRLINE_WORDS["zh"]["anything_else"]
    assert agent.proceed_text("S") != agent.reassure_text("S")


def test_each_domain_puts_chinese_sentences_together_as_its_transcripts_were_measured():
    """Airline writes Chinese without a gap; billing with a space; clinic_admin its notes
    without one and the sentences of one answer (a refusal and "anything else?") with one."""
    airline = _desk("airline", phrasing="zh")
    billing = _desk("billing", phrasing="zh")
    clinic = _desk("clinic_admin", phrasing="zh")
    for agent in (airline, billing, clinic):
        agent.notes.append("甲。")
    assert airline.say("乙。").content == "甲。乙。"
    assert billing.say("乙。").content == "甲。 乙。"
    assert clinic.say("乙。").content == "甲。乙。"
    request = ClinicReq("book")
    assert clinic.close(request, "declined").content == (
        f"{clinic.t('declined')} {clinic.t('anything_else')}"
    )
    assert request.done
    # English always with a space, notes first and said once.
    english = _desk("airline")
    english.notes.append("Done.")
    assert english.say("Next?").content == "Done. Next?"
    assert english.say("Next?").content == "Next?"


# -- keeping the customer's requests ----------------------------------------------------------


def test_facts_said_before_a_request_is_named_go_to_the_request_named_next():
    agent = _desk("retail")
    agent.observe_user("It's about order #W1234567.")
    assert not agent.reqs and "#W1234567" in agent.pool
    agent.observe_user("I want to cancel it.")
    [request] = agent.reqs
    assert request.intent == "cancel" and request.order_id == "#W1234567"
    assert agent.pool == "" and agent.focus is request


def test_a_sentence_about_another_charge_starts_its_own_request():
    agent = _desk("billing")
    agent.observe_user("I was charged twice by SHOP*ONE, please refund it.")
    agent.observe_user("Also, refund the charge from CAFE*TWO.")
    refunds = [r for r in agent.reqs if r.intent == "refund"]
    assert [r.merchant for r in refunds] == ["SHOP*ONE", "CAFE*TWO"]


def test_a_declined_write_closes_the_request_and_is_said_before_the_next_message():
    agent = _desk("billing")
    request = BillingReq("refund")
    agent.reqs.append(request)
    agent.active = request
    agent.last_user = "No."
    agent.declined("request_refund", {})
    assert request.done
    assert agent.serve([]).content == f"{agent.t('declined')} {agent.t('anything_else')}"


def test_the_identity_question_says_why_the_last_lookup_failed_and_explains_when_asked_why():
    agent = _desk("airline")
    agent.failed = "No booking found."
    agent.heard_why("Why do you need that?")
    text = agent.ask_identity().content
    assert text == " ".join(
        ["No booking found.", agent.t("explain_identity"), agent.t("ask_identity")]
    )
    assert agent.ask_identity().content == agent.t("ask_identity")


# -- what request-list customers do alike -----------------------------------------------------


def _member() -> MembershipScriptedUser:
    domain = get_domain("membership")
    task = next(t for t in domain.tasks() if t.kind is TaskKind.ACTION)
    return MembershipScriptedUser(scenario=task.scenario, persona=parse_persona("baseline"), seed=1)


def test_a_refusal_without_a_reason_while_a_yes_is_pending_gets_the_yes_said_again():
    user = _member()
    reading = user.reader.read("I can't do that.")
    user.confirmed = 0
    text, signal = user.take_refusal(reading, lambda act: None) or ("", Signal.STOP)
    assert signal is Signal.NONE and text.startswith("But I said yes.")
    assert user.confirmed is None and 0 not in user.done
    # No yes pending: it asks why once, then takes the refusal as settled.
    why, signal = user.take_refusal(reading, lambda act: None) or ("", Signal.STOP)
    assert signal is Signal.NONE and why in user.options("why_not")
    assert 0 not in user.done
    assert user.take_refusal(reading, lambda act: None) is None
    assert 0 in user.done


def test_the_customer_hears_a_refusal_in_the_cue_words_and_not_in_a_plain_statement():
    user = _member()
    assert user.refusal_cue is REFUSAL_CUE
    assert user.refusal_heard(user.reader.read("Unfortunately that is not possible."))
    assert not user.refusal_heard(user.reader.read("Your membership is active."))


@pytest.mark.parametrize(
    ("dob", "slip"),
    [
        ("1990-03-12", "1990-03-21"),  # the day's digits swapped
        ("1990-03-11", "1989-03-11"),  # swapping changes nothing: a year earlier
        ("1990-03-29", "1989-03-29"),  # "92" is no day
        ("1990-03-30", "1990-03-03"),
    ],
)
def test_a_confused_customer_mistypes_its_date_of_birth_into_another_valid_date(dob, slip):
    assert dob_slip(dob) == slip
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", dob_slip(dob))


def test_the_first_pattern_in_priority_order_names_the_sentence():
    table = [("dispute", re.compile("wrong")), ("refund", re.compile("refund|wrong"))]
    assert first_match(table, "refund the wrong charge") == "dispute"
    assert first_match(table, "a refund please") == "refund"
    assert first_match(table, "hello") == ""


def test_a_tool_result_is_read_as_json_text_or_nothing_for_an_error():
    assert tool_data('{"a": 1}', False) == {"a": 1}
    assert tool_data("[1]", False) == [1]
    assert tool_data("Done.", False) == "Done."
    assert tool_data('Error: {"a": 1}', True) is None
