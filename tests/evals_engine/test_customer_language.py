# ruff: noqa: RUF001 -- Chinese customer messages use full-width punctuation on purpose.
"""Language is a persona dimension: every task of every offline domain can be run with a
customer who writes Chinese, and the reference agent answers in the customer's language, read
from the customer's messages alone.

The actors: the scripted customer of each offline domain writing Simplified Chinese (every
persona preset), the reference agent answering by language (and reworded, in English, against
the Chinese customer), an agent that does nothing, and a policy-blind agent that proposes what
the policy forbids."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest

from evals.domains import get_domain
from evals.domains.airline.scripted.customer_phrases import PHRASES as AIRLINE
from evals.domains.billing.scripted.customer_phrases import PHRASES as BILLING
from evals.domains.clinic_admin.scripted.customer_phrases import PHRASES as CLINIC
from evals.domains.membership.scripted import MembershipScriptedUser
from evals.domains.membership.scripted.customer_phrases import PHRASES as MEMBERSHIP
from evals.domains.retail.scripted import RetailReferenceAgent
from evals.domains.retail.scripted.customer_phrases import PHRASES as RETAIL
from evals.domains.tau2_mock.scripted.customer_phrases import PHRASES as MOCK
from evals.domains.tau2_mock.scripted.customer_phrases import SCENARIO_ZH
from evals.domains.telecom.scripted.customer_phrases import PHRASES as TELECOM
from evals.engine.messages import Message, Role
from evals.engine.oracle import FailureClass, evaluate
from evals.engine.orchestrator import Orchestrator
from evals.engine.persona import PRESETS, Language, parse_persona
from evals.engine.policy import PolicyGuard
from evals.engine.runner import MemorySink, RunSpec, TrialRecord, run
from evals.engine.sandbox.agent import customer_language
from evals.engine.sandbox.phrases import BASE, REQUEST_LIST, Phrasebook
from evals.engine.task import TaskKind
from tests.evals_engine.test_retail_customer import POLICY_BLIND
from tests.evals_membership.test_customer import PolicyBlindAgent as MembershipPolicyBlind
from tests.support.values import leaves

OFFLINE = ("retail", "membership", "tau2_mock", "airline", "billing", "clinic_admin", "telecom")
# The English transcripts held to a digest below: the domains whose wording other figures
# were measured against.
DIGESTED = ("retail", "membership", "tau2_mock")
ZH = "language=zh-Hans"
BOOKS: dict[str, Phrasebook] = {
    "base": BASE,
    "requests": REQUEST_LIST,
    "retail": RETAIL,
    "membership": MEMBERSHIP,
    "tau2_mock": MOCK,
    "airline": AIRLINE,
    "billing": BILLING,
    "clinic_admin": CLINIC,
    "telecom": TELECOM,
}
# Phrases whose values differ by language: an invoice month is a name in English ("June") and
# a number in Chinese ("6 月").
BY_LANGUAGE = {("membership", "period")}
# Terms a Chinese speaker writes in Latin letters, as Chinese phones and bills print them (the
# e2e walk of the pages keeps LLM, API and SLA the same way).
KEPT_TERMS = frozenset({"SIM", "eSIM", "PIN", "PUK", "APN", "GB"})
_FIELD = re.compile(r"\{(\w+)\}")
_LATIN = re.compile(r"[A-Za-z]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ID = re.compile(r"\b\w*\d\w*\b")


def _alternatives(phrase: str | tuple[str, ...]) -> tuple[str, ...]:
    return (phrase,) if isinstance(phrase, str) else phrase


def _run(domain: str, personas: tuple[str, ...], **kwargs: Any) -> list[TrialRecord]:
    sink = MemorySink()
    run(RunSpec(domains=(domain,), personas=personas, **kwargs), sink, ks=(1,))
    return sink.records


def _texts(record: TrialRecord, role: str) -> list[str]:
    """What `role` said in the trial (not in a τ² message history the trial continues)."""
    assert record.trajectory is not None
    task = get_domain(record.domain).task(record.task_id)
    messages = record.trajectory["messages"][len(task.history) :]
    return [m["content"] for m in messages if m.get("role") == role and m.get("content")]


# -- what the Chinese customer says ---------------------------------------------------------


@pytest.mark.parametrize("name", list(BOOKS))
def test_every_phrase_has_a_chinese_wording_taking_the_same_values(name):
    book = BOOKS[name]
    assert set(book[Language.EN]) == set(book[Language.ZH_HANS]), name
    for key, english in book[Language.EN].items():
        chinese = book[Language.ZH_HANS][key]
        if (name, key) in BY_LANGUAGE:
            continue
        fields = {f for a in _alternatives(english) for f in _FIELD.findall(a)}
        assert {f for a in _alternatives(chinese) for f in _FIELD.findall(a)} == fields, (name, key)


@pytest.mark.parametrize("name", list(BOOKS))
def test_no_chinese_phrase_holds_an_english_word(name):
    for key, phrase in BOOKS[name][Language.ZH_HANS].items():
        for alternative in _alternatives(phrase):
            words = _LATIN.findall(_FIELD.sub(" ", alternative))
            assert not set(words) - KEPT_TERMS, (name, key, alternative)
    for _, chinese in SCENARIO_ZH:
        assert not _LATIN.findall(chinese)


def _pass_1(records: list[TrialRecord]) -> float:
    measured = [r for r in records if not r.not_judged and not r.infrastructure]
    return sum(r.reward >= 1.0 for r in measured) / len(measured)


@pytest.mark.parametrize("domain", OFFLINE)
def test_every_task_passes_with_a_plain_chinese_customer(domain):
    """Every task of the domain, the baseline customer writing Chinese, two trials each, with
    the reference agent: pass^1 = 1.0 (tasks judged in prose count only when judged)."""
    records = _run(domain, (f"baseline,{ZH}",), trials=2, seed=11)
    assert {r.task_id for r in records} == {t.id for t in get_domain(domain).tasks()}
    failed = [(r.key, r.failure) for r in records if r.reward < 1.0 and not r.not_judged]
    assert not failed, failed


@pytest.mark.parametrize("domain", OFFLINE)
def test_chinese_customers_of_every_persona_score_the_reference_agent_as_english_ones_do(domain):
    """Every task, every persona preset, in Chinese and in English on the same seed: the
    reference agent's pass^1 is within 2 points (an impatient customer walks away in either
    language; nothing else may fail)."""
    chinese = _run(domain, tuple(f"{p},{ZH}" for p in PRESETS), seed=11)
    english = _run(domain, tuple(PRESETS), seed=11)
    assert _pass_1(chinese) >= _pass_1(english) - 0.02, (_pass_1(chinese), _pass_1(english))
    failed = {r.failure for r in chinese if r.reward < 1.0 and not r.not_judged}
    assert failed <= {"user_abandoned", "simulator_error"}, failed


def _assert_no_english(records: list[TrialRecord]) -> None:
    """Every Latin word a Chinese customer writes is one of its scenario's values (an id, an
    email, a name, an amount's currency, a product's name or option, a task's title) or part of
    an id the agent told it ("task_2") — never one of the agent's English words."""
    for record in records:
        task = get_domain(record.domain).task(record.task_id)
        told = " ".join(_ID.findall(" ".join(_texts(record, "assistant"))))
        given = " ".join([*leaves(task.scenario.data), told, *_own_screen(record)])
        allowed = {w.lower() for w in _LATIN.findall(given)} | {t.lower() for t in KEPT_TERMS}
        for text in _texts(record, "user"):
            assert _CJK.search(text), (record.key, text)
            stray = [
                w
                for w in _LATIN.findall(text)
                if w.lower() not in allowed and not _slip_of(w.lower(), allowed)
            ]
            assert not stray, (record.key, text, stray)


def _own_screen(record: TrialRecord) -> list[str]:
    """What the customer's own tools showed it (a phone's settings, in a dual-control domain):
    it reports those values as they are printed ("APN: internet")."""
    assert record.trajectory is not None
    return [
        str(m.get("content", ""))
        for m in record.trajectory["messages"]
        if m.get("role") == "tool" and str(m.get("tool_call_id", "")).startswith("user_call_")
    ]


def _slip_of(word: str, given: set[str]) -> bool:
    """A confused customer's slip in one of its own values ("Petrok" for "Petrov"): the same
    length, one letter different — a mistyped value, not an English word."""
    return len(word) >= 4 and any(
        len(g) == len(word) and sum(a != b for a, b in zip(g, word, strict=True)) == 1
        for g in given
    )


@pytest.mark.parametrize("domain", OFFLINE)
def test_the_chinese_customer_writes_no_english_but_the_values_it_was_given(domain):
    """A whole run: every task, the baseline and the incoherent customer writing Chinese."""
    _assert_no_english(_run(domain, (f"baseline,{ZH}", f"incoherent,{ZH}"), seed=5))


# -- the agent answers in the customer's language -------------------------------------------


def test_the_customers_language_is_read_from_its_latest_message_that_says_enough():
    english = Message.user("I'd like to cancel order #W1234567, I ordered it by mistake.")
    chinese = Message.user("我想取消订单 #W1234567，是我下错单了。")
    assert customer_language([]) is Language.EN
    assert customer_language([english]) is Language.EN
    assert customer_language([chinese]) is Language.ZH_HANS
    # A short yes in the other language is not a switch...
    assert customer_language([english, Message.user("确认。")]) is Language.EN
    assert customer_language([chinese, Message.user("OK, yes.")]) is Language.ZH_HANS
    # ...a message that says something is; ids, emails and names do not make Chinese English.
    assert customer_language([english, chinese]) is Language.ZH_HANS
    assert customer_language([chinese, english]) is Language.EN
    named = Message.user("我叫 Olivia Tanaka，邮编是 13632，邮箱 olivia.t@example.com。")
    assert customer_language([english, named]) is Language.ZH_HANS


def test_the_agent_switches_language_when_the_customer_does():
    agent = RetailReferenceAgent(domain=get_domain("retail"), params={}, seed=1)
    messages = [Message.user("Hello, I need some help with one of my orders please.")]
    first = agent.respond(messages, [])
    assert first.content and not _CJK.search(first.content)
    messages += [first, Message.user("不好意思，我想用中文。我需要处理一个订单的问题。")]
    second = agent.respond(messages, [])
    assert _CJK.search(second.content), second.content
    assert customer_language([Message.user(second.content)]) is Language.ZH_HANS


@pytest.mark.parametrize("domain", OFFLINE)
def test_the_reference_agent_answers_chinese_to_chinese_and_english_to_english(domain):
    for language, personas in (("zh", (f"baseline,{ZH}",)), ("en", ("baseline",))):
        for record in _run(domain, personas, seed=3):
            for text in _texts(record, "assistant")[1:]:  # after the greeting
                if language == "en":
                    assert not _CJK.search(text), (record.key, text)
                else:
                    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
                    assert cjk >= latin, (record.key, text)


@pytest.mark.parametrize(("domain", "phrasing"), [("retail", "en-2"), ("membership", "en-3")])
def test_a_reworded_english_agent_still_passes_with_a_chinese_customer(domain, phrasing):
    """An explicit phrasing is spoken whatever the customer writes: the Chinese customer reads
    English it was never written against, by meaning."""
    records = _run(
        domain, (f"baseline,{ZH}", f"confused,{ZH}"), seed=9, agent_params={"phrasing": phrasing}
    )
    for record in records:
        assert all(not _CJK.search(t) for t in _texts(record, "assistant")), record.key
    _assert_no_english(records)
    failed = [(r.task_id, r.persona, r.failure) for r in records if r.reward < 1.0]
    assert not failed, failed


# -- bad agents still fail with a Chinese customer ------------------------------------------


@pytest.mark.parametrize("domain", OFFLINE)
def test_an_agent_that_does_nothing_scores_nothing_with_a_chinese_customer(domain):
    records = _run(domain, (f"baseline,{ZH}",), agent="sandbox/fault:do_nothing")
    assert records and [r.key for r in records if r.reward >= 1.0] == []


def test_a_policy_blind_agent_violates_the_policy_on_every_retail_refusal_task_in_chinese():
    refusals = tuple(t.id for t in get_domain("retail").tasks() if t.kind is TaskKind.REFUSAL)
    records = _run("retail", (f"baseline,{ZH}",), task_ids=refusals, agent=POLICY_BLIND)
    assert {r.task_id for r in records} == set(refusals)
    for record in records:
        assert record.policy_violations > 0 and record.reward == 0.0, record.task_id


def test_a_policy_blind_agent_gets_a_chinese_yes_and_a_violation_on_every_membership_refusal():
    domain = get_domain("membership")
    for task in (t for t in domain.tasks() if t.kind is TaskKind.REFUSAL):
        world = domain.fresh_world(task.world_seed)
        user = MembershipScriptedUser(
            scenario=task.scenario, persona=parse_persona(f"baseline,{ZH}"), seed=1
        )
        agent = MembershipPolicyBlind(domain=domain, params={}, seed=1)
        trajectory = Orchestrator(
            domain=domain, world=world, agent=agent, user=user, guard=PolicyGuard(domain.rules)
        ).run()
        evaluation = evaluate(domain, task, trajectory, world)
        assert any(v.violations for v in trajectory.verdicts), task.id
        assert evaluation.failure is FailureClass.POLICY_VIOLATION, task.id
        said = [m.content for m in trajectory.messages if m.role is Role.USER and m.content]
        assert all(_CJK.search(t) for t in said), task.id


# -- English customers say what they always said --------------------------------------------

# The transcripts of English customers (every 4th task of each offline domain, five persona
# presets, seed 2) hashed together. First computed on the code before customers spoke
# Chinese; re-taken once when the persona mechanisms (skeptics asking why, read-backs,
# push-backs, the retail agent naming unmatched identity details) deliberately changed what
# English customers and the reference agent say; re-taken again when retail's order-unknown
# customers stopped knowing their order number (they recognise their order by its products)
# and the retail agent began naming an order's products in its refusals and address changes.
# A change that means to change it updates it.
ENGLISH_DIGEST = "5c387b1f25e46bdac8a9ac4c57bb3cca38f7e830fbb464934048728c85578c20"


def english_digest() -> str:
    digest = hashlib.sha256()
    for domain in DIGESTED:
        tasks = tuple(t.id for t in get_domain(domain).tasks())[::4]
        sink = MemorySink()
        spec = RunSpec(
            domains=(domain,),
            personas=("baseline", "impatient", "skeptical", "confused", "incoherent"),
            task_ids=tasks,
            seed=2,
        )
        run(spec, sink, ks=(1,))
        for record in sorted(sink.records, key=lambda r: r.key):
            assert record.trajectory is not None
            messages = record.trajectory["messages"]
            digest.update(json.dumps([record.key, messages], sort_keys=True).encode())
    return digest.hexdigest()


def test_english_customers_and_the_agent_say_exactly_what_they_said_before():
    assert english_digest() == ENGLISH_DIGEST
