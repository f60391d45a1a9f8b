"""The airline scripted customer reads any agent by meaning, in English and Chinese: it gives
the identity it has, says yes only to a proposal with its own values (and, without its booking
reference, only to one about its own trip), corrects a mistyped last name, accepts refusals and
transfers; its phrasebook says the same in both languages; the reference agent answers a Chinese
customer in Chinese, and its rewordings score what the original scores."""

from __future__ import annotations

import re
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.airline.scripted import AirlineScriptedUser
from evals.domains.airline.scripted.customer_phrases import PHRASES
from evals.domains.airline.scripted.phrasings import PHRASINGS
from evals.domains.airline.scripted.user import _slip
from evals.domains.airline.tasks.recipes import REASON_24H, REASON_BASIC
from evals.engine.messages import Signal
from evals.engine.metrics import summarise
from evals.engine.persona import PRESETS, Language, parse_persona
from evals.engine.runner import MemorySink, RunSpec, TrialRecord, run
from evals.engine.task import Task

airline = get_domain("airline")
TASKS = airline.tasks()
ZH = "language=zh-Hans"
_FIELD = re.compile(r"\{(\w+)\}")
_LATIN = re.compile(r"[A-Za-z]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _task(name: str) -> Task:
    return next(t for t in TASKS if t.id.split("-", 2)[2] == name)


def _customer(task: Task, persona: str = "baseline") -> AirlineScriptedUser:
    return AirlineScriptedUser(scenario=task.scenario, persona=parse_persona(persona), seed=3)


def _alternatives(phrase: str | tuple[str, ...]) -> tuple[str, ...]:
    return (phrase,) if isinstance(phrase, str) else phrase


# -- the phrasebook -------------------------------------------------------------------------


def test_every_phrase_has_a_chinese_wording_taking_the_same_values():
    english, chinese = PHRASES[Language.EN], PHRASES[Language.ZH_HANS]
    assert set(english) == set(chinese)
    for key, phrase in english.items():
        fields = {f for a in _alternatives(phrase) for f in _FIELD.findall(a)}
        assert {f for a in _alternatives(chinese[key]) for f in _FIELD.findall(a)} == fields, key


def test_no_chinese_phrase_holds_an_english_word():
    for key, phrase in PHRASES[Language.ZH_HANS].items():
        for alternative in _alternatives(phrase):
            assert not _LATIN.findall(_FIELD.sub(" ", alternative)), (key, alternative)


# -- reading the agent by meaning -----------------------------------------------------------


def test_the_customer_gives_the_identity_it_has():
    by_ref = _customer(_task("change-standard-fare-ref-name"))
    text, _ = by_ref.reply("Hi! To find your booking, what's the booking reference and surname?")
    ident = by_ref.identity
    assert ident["booking_ref"] in text and ident["last_name"] in text
    unknown = _customer(_task("cancel-within-24-hours-ref-unknown"))
    text, _ = unknown.reply("Could you tell me your booking reference please?")
    assert unknown.identity["email"] in text
    assert not re.search(r"\b[A-Z][A-Z0-9]{4}[0-9]\b", text)


def test_a_go_ahead_with_the_customers_values_gets_a_yes_and_another_date_a_correction():
    task = _task("change-standard-fare-ref-name")
    wanted = task.scenario.data["requests"][0]["date"]
    ref = task.scenario.data["identity"]["booking_ref"]
    yes = _customer(task)
    text, signal = yes.reply(
        f"I can move booking {ref} to the flight on {wanted} for 75.00 USD. Would you like me to "
        "go ahead?"
    )
    assert signal is Signal.NONE and yes.confirmed == 0
    no = _customer(task)
    text, _ = no.reply(
        f"I can move booking {ref} to the flight on 2026-03-25 for 75.00 USD. Would you like me "
        "to go ahead?"
    )
    assert wanted in text and no.confirmed is None


@pytest.mark.parametrize("language", ["en", "zh-Hans"])
def test_a_customer_without_its_reference_says_yes_only_to_a_proposal_about_its_own_trip(language):
    task = _task("cancel-within-24-hours-ref-unknown")
    trip = task.scenario.data["trip"]
    persona = "baseline" if language == "en" else f"baseline,{ZH}"
    wrong = _customer(task, persona)
    text, _ = wrong.reply(
        "I will cancel reservation ABCDE2 from Chicago to Osaka and refund 10.00 USD. Shall I "
        "proceed? (yes/no)"
    )
    assert wrong.confirmed is None
    assert (trip["from"] if language == "en" else trip["from_zh"]) in text
    right = _customer(task, persona)
    right.reply(
        f"I will cancel reservation ABCDE2 from {trip['from']} to {trip['to']} and refund "
        "10.00 USD. Shall I proceed? (yes/no)"
    )
    assert right.confirmed == 0


def test_a_proposal_of_something_never_asked_for_is_declined():
    customer = _customer(_task("compensation-long-delay-ref-name"))
    text, _ = customer.reply(
        "To confirm: I will cancel reservation ABCDE2 and refund 10.00 USD. Shall I proceed?"
    )
    assert customer.confirmed is None
    assert "compensation" in text


def test_a_refusal_settles_the_request_and_the_customer_then_says_goodbye():
    customer = _customer(_task("refuse-change-basic-economy-ref-name"))
    customer.stated.add(0)
    _, signal = customer.reply(
        "Unfortunately that ticket is basic economy, so I cannot change it. Anything else?"
    )
    assert signal is Signal.STOP and customer._open() == []


def test_a_transfer_in_new_words_ends_the_conversation():
    customer = _customer(_task("handoff-medical-exception-email"))
    _, signal = customer.reply("Let me get someone from our exceptions team to take this over.")
    assert signal is Signal.STOP


def test_a_confused_customer_corrects_a_mistyped_last_name_the_agent_echoes():
    task = _task("add-paid-bag-ref-name")
    customer = AirlineScriptedUser(scenario=task.scenario, persona=PRESETS["confused"], seed=0)
    given = ""
    for seed in range(20):
        customer = AirlineScriptedUser(
            scenario=task.scenario, persona=PRESETS["confused"], seed=seed
        )
        given, _ = customer.reply("Please give me your booking reference and last name.")
        if customer.mistakes:
            break
    assert customer.mistakes, "no confused slip in 20 seeds"
    wrong, right = next(iter(customer.mistakes.items()))
    assert wrong in given
    text, _ = customer.reply(f"I couldn't find a booking with last name {wrong}.")
    assert right in text and not customer.mistakes


def test_no_scenario_says_what_the_outcome_should_be():
    for task in TASKS:
        # The instructions say how to take a refusal in general; the data says nothing of it.
        assert "refus" not in str(task.scenario.data).lower(), task.id
        said = (str(task.scenario.data) + task.scenario.prompt()).lower()
        assert not any(reason in said for reason in REASON_BASIC + REASON_24H), task.id


# -- the reference agent in the customer's language, and reworded --------------------------


def _run(personas: tuple[str, ...], **kwargs: Any) -> list[TrialRecord]:
    sink = MemorySink()
    run(RunSpec(domains=("airline",), personas=personas, **kwargs), sink, ks=(1,))
    return list(sink.records)


def _texts(record: TrialRecord, role: str) -> list[str]:
    assert record.trajectory is not None
    return [
        m["content"]
        for m in record.trajectory["messages"]
        if m.get("role") == role and m.get("content")
    ]


def test_the_reference_agent_answers_chinese_to_chinese_and_english_to_english():
    for language, personas in (("zh", (f"baseline,{ZH}",)), ("en", ("baseline",))):
        records = _run(personas, seed=3)
        assert all(r.reward == 1.0 for r in records), [r.task_id for r in records if r.reward < 1]
        for record in records:
            for text in _texts(record, "assistant")[1:]:  # after the greeting
                if language == "en":
                    assert not _CJK.search(text), (record.key, text)
                else:
                    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
                    assert cjk >= latin, (record.key, text)


def test_the_chinese_customer_writes_no_english_but_the_values_it_was_given():
    for record in _run((f"baseline,{ZH}", f"incoherent,{ZH}"), seed=5):
        task = airline.task(record.task_id)
        # A confused customer's slip in its last name is a value it was given, mistyped.
        given = str(task.scenario.data) + _slip(task.scenario.data["identity"]["last_name"])
        for text in _texts(record, "user"):
            for word in _LATIN.findall(text):
                assert word in given, (record.key, word, text)


def test_every_rewording_changes_every_sentence_and_keeps_its_slots():
    reference = PHRASINGS["en"]
    for name, table in PHRASINGS.items():
        assert set(table) == set(reference), name
        if name != "en":
            assert [k for k in reference if table[k] == reference[k]] == [], name
        for key, sentence in table.items():
            assert set(_FIELD.findall(sentence)) <= set(_FIELD.findall(reference[key])) | {
                "trip"
            }, (name, key)


def _pass_1(phrasing: str, personas: tuple[str, ...]) -> float:
    records = _run(personas, seed=7, agent_params={"phrasing": phrasing}, include_trajectory=False)
    return summarise(records, ks=(1,)).pass_hat[1].value


@pytest.mark.parametrize(
    "personas",
    [("baseline", "impatient", "skeptical", "confused"), (f"baseline,{ZH}", f"confused,{ZH}")],
)
def test_the_reworded_reference_agents_score_within_two_points_of_the_original(personas):
    """en-2 with English customers; zh (an explicit phrasing) with both."""
    original = _pass_1("en" if personas[0] == "baseline" else "zh", personas)
    assert original > 0.95
    for phrasing in ("en-2", "zh") if personas[0] == "baseline" else ("en", "en-2"):
        assert abs(_pass_1(phrasing, personas) - original) <= 0.02, phrasing
