"""Every persona dimension changes what happens to the reference agent, not only the words.

Each dimension is run high and low on retail and membership (one trial per task, seed 7),
over a background that lets its mechanism show (a turn budget only bites in long
conversations, a repeat tolerance only when questions repeat), and the trajectories must move
the expected way: more turns, more of the persona's own moves, more abandonments. The unit
tests below pin each mechanism on a one-request customer and on the reference base's
answers. docs/evals-engine.md ("Personas") documents the numbers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from statistics import mean
from typing import Any

import pytest

from evals.engine.messages import Message, Role, Signal, TerminationReason
from evals.engine.persona import parse_persona
from evals.engine.runner import MemorySink, RunSpec, run
from evals.engine.sandbox import ScriptedUserBase
from evals.engine.sandbox.user import ABANDON, REASSURANCE, SAY
from evals.engine.understanding.utterances import ActKind, UtteranceReader

DOMAINS = ("retail", "membership")
# Long conversations: the customer mistypes, asks why before giving its details and asks to
# hear every change back, so budgets and tolerances are reached.
LONG = "incoherence=high,skepticism=high,trust=low"
MOVES = {
    "read_back": SAY["read_back"][0],
    "why_not": SAY["why_not"][0],
    "push_back": SAY["push_back"][0],
    "why_identity": "Why do you need",
    "correction": "my mistake",
    "out_of_turns": "|".join(ABANDON[:3]),
}


@dataclass(frozen=True)
class Effect:
    turns: float
    abandoned: int
    moves: Counter[str]
    violations: int
    answers: dict[str, list[str]]  # the agent's answer to each of the persona's moves


@cache
def effect(domain: str, persona: str) -> Effect:
    sink = MemorySink()
    spec = RunSpec(domains=(domain,), personas=(persona,), trials=1, seed=7)
    run(spec, sink, ks=(1,))
    moves: Counter[str] = Counter()
    answers: dict[str, list[str]] = {}
    for record in sink.records:
        assert record.trajectory is not None
        messages = record.trajectory["messages"]
        for i, m in enumerate(messages):
            if m["role"] != "user":
                continue
            text = m.get("content") or ""
            for move, phrase in MOVES.items():
                if any(p in text for p in phrase.split("|")):
                    moves[move] += 1
                    answer = next(
                        (
                            n["content"]
                            for n in messages[i + 1 :]
                            if n["role"] == "assistant" and n.get("content")
                        ),
                        "",
                    )
                    answers.setdefault(move, []).append(answer)
            if text in REASSURANCE or any(r in text for r in REASSURANCE):
                moves["reassurance"] += 1
    return Effect(
        turns=mean(r.agent_turns for r in sink.records),
        abandoned=sum(r.termination == TerminationReason.USER_ABANDON for r in sink.records),
        moves=moves,
        violations=sum(r.policy_violations for r in sink.records),
        answers=answers,
    )


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_impatient_customer_walks_away_where_a_patient_one_waits(domain: str) -> None:
    high = effect(domain, f"{LONG},impatience=high")
    low = effect(domain, f"{LONG},impatience=low")
    # It leaves at a repeated question or at its turn budget, whichever comes first.
    assert high.abandoned > low.abandoned
    assert high.turns < low.turns


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_urgent_customer_runs_out_of_turns_sooner(domain: str) -> None:
    high = effect(domain, f"{LONG},impatience=high,urgency=high")
    low = effect(domain, f"{LONG},impatience=high,urgency=low")
    assert high.moves["out_of_turns"] > low.moves["out_of_turns"]
    assert high.abandoned > low.abandoned
    assert high.turns < low.turns


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_skeptical_customer_asks_why_and_costs_the_agent_turns(domain: str) -> None:
    high = effect(domain, "skepticism=high")
    low = effect(domain, "skepticism=low")
    assert high.moves["why_identity"] > low.moves["why_identity"] == 0
    assert high.turns > low.turns


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_confused_customer_gives_wrong_details_and_corrects_them(domain: str) -> None:
    high = effect(domain, "confusion=high")
    low = effect(domain, "confusion=low")
    # (Some scenarios hold a slip any customer makes: the low side is not always zero.)
    assert high.moves["correction"] > low.moves["correction"]
    assert high.turns > low.turns


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_incoherent_customer_costs_the_agent_turns(domain: str) -> None:
    high = effect(domain, "incoherence=high")
    low = effect(domain, "incoherence=low")
    assert high.turns > low.turns


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_anxious_customer_asks_for_reassurance(domain: str) -> None:
    high = effect(domain, "emotion=anxiety:high")
    low = effect(domain, "emotion=none")
    assert high.moves["reassurance"] > low.moves["reassurance"] == 0
    assert high.turns > low.turns


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_distrustful_customer_has_every_change_read_back(domain: str) -> None:
    low_trust = effect(domain, "trust=low")
    high_trust = effect(domain, "trust=high")
    assert low_trust.moves["read_back"] > high_trust.moves["read_back"] == 0
    assert low_trust.turns > high_trust.turns
    # The reference base restates each change: nobody leaves over it.
    assert low_trust.abandoned == high_trust.abandoned == 0
    for answer in low_trust.answers["read_back"]:
        assert READER.read(answer).has(ActKind.DONE), answer


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_angry_customer_pushes_back_where_a_sad_one_accepts(domain: str) -> None:
    angry = effect(domain, "incoherence=high,emotion=anger:high,politeness=low")
    sad = effect(domain, "incoherence=high,emotion=sadness:high,politeness=low")
    assert angry.moves["push_back"] > sad.moves["push_back"] == 0
    assert angry.turns > sad.turns
    assert angry.abandoned >= sad.abandoned
    # The agent declines the exception again: the push-back buys no policy violation.
    assert angry.violations == sad.violations == 0
    for answer in angry.answers["push_back"]:
        assert READER.read(answer).has(ActKind.REFUSE), answer


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_impolite_angry_customer_pushes_back_where_a_polite_one_does_not(domain: str) -> None:
    rude = effect(domain, "incoherence=high,emotion=anger:high,politeness=low")
    polite = effect(domain, "incoherence=high,emotion=anger:high,politeness=high")
    assert rude.moves["push_back"] > polite.moves["push_back"] == 0
    assert rude.turns > polite.turns


def test_the_emotion_and_politeness_shift_the_tolerance_for_repeated_questions() -> None:
    def tolerance(spec: str) -> int:
        return _customer(spec).repeat_tolerance()

    assert tolerance("emotion=anger:high,politeness=low") == 2
    assert tolerance("emotion=anger:high,politeness=high") == 3
    assert tolerance("emotion=sadness:high") == 4
    assert tolerance("impatience=high,emotion=frustration:high,politeness=low") == 1


def test_urgency_cuts_the_turn_budget() -> None:
    budgets = [_customer(f"urgency={level}").turn_budget() for level in ("low", "medium", "high")]
    assert budgets == [16, 15, 14]
    assert _customer("impatient").turn_budget() == 6


# -- each mechanism on a one-request customer --------------------------------------------------


class _OneRequest(ScriptedUserBase):
    """A customer with one request: it says goodbye when the agent says it is done or
    refused, and otherwise repeats its request."""

    def __init__(self, persona: str) -> None:
        scenario: Any = type("Scenario", (), {"data": {}})()
        super().__init__(scenario=scenario, persona=parse_persona(persona), seed=1)
        self.replies: list[str] = []

    def _identity(self) -> str:
        return "I'm Ann Lee."

    def _open(self) -> list[int]:
        return [0]

    def _focus(self) -> int:
        return 0

    def _state(self, i: int) -> str:
        return "Please cancel order #W1234567."

    def opening(self) -> str:
        return self._state(0)

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        self.replies.append(agent_text)
        reading = READER.read(agent_text)
        if reading.has(ActKind.DONE) or reading.has(ActKind.REFUSE):
            return "Thanks, bye.", Signal.STOP
        return self._state(0), Signal.NONE


READER = UtteranceReader()


def _customer(persona: str) -> _OneRequest:
    return _OneRequest(persona)


def _talk(customer: _OneRequest, *agent: str) -> list[Message]:
    messages = [Message(Role.SYSTEM, "policy")]
    messages.append(customer.respond(messages))
    out = []
    for text in agent:
        messages.append(Message.assistant(text))
        said = customer.respond(messages)
        messages.append(said)
        out.append(said)
    return out


DONE = "Done: order #W1234567 has been cancelled; $20.00 will be refunded."


def test_a_low_trust_customer_leaves_an_agent_that_cannot_say_what_it_changed() -> None:
    customer = _customer("trust=low")
    asked, again, left = _talk(customer, DONE, "It's all taken care of.", "Everything is fine.")
    assert asked.content == SAY["read_back"][0]
    assert again.content == SAY["read_back_again"][0]
    assert left.signal is Signal.ABANDON
    assert customer.replies == []  # the domain never heard an unverified "done"


def test_a_low_trust_customer_accepts_a_read_back_with_the_action_and_its_ids() -> None:
    customer = _customer("trust=low")
    restated = "Done, exactly as you approved: I will cancel order #W1234567."
    asked, bye = _talk(customer, DONE, restated)
    assert asked.content == SAY["read_back"][0]
    assert bye.signal is Signal.STOP
    assert customer.replies == [f"{DONE}\n{restated}"]  # the domain heard both


def test_a_read_back_naming_another_order_is_not_accepted() -> None:
    customer = _customer("trust=low")
    _, again = _talk(
        customer, DONE, "Done, exactly as you approved: I will cancel order #W7654321."
    )
    assert again.content == SAY["read_back_again"][0]


def test_a_trusting_customer_takes_done_at_its_word() -> None:
    (bye,) = _talk(_customer("trust=high"), DONE)
    assert bye.signal is Signal.STOP


def test_a_skeptic_leaves_a_refusal_that_never_says_why() -> None:
    customer = _customer("skepticism=high")
    why, left = _talk(customer, "Sorry, I can't do that.", "I just can't, sorry.")
    assert why.content == SAY["why_not"][0]
    assert left.signal is Signal.ABANDON


def test_a_skeptic_accepts_a_refusal_once_it_hears_the_reason() -> None:
    customer = _customer("skepticism=high")
    why, bye = _talk(customer, "Sorry, I can't do that.", "Because the order has already shipped.")
    assert why.content == SAY["why_not"][0]
    assert bye.signal is Signal.STOP


def test_a_refusal_with_its_reason_raises_no_why() -> None:
    (bye,) = _talk(
        _customer("skepticism=high"),
        "I'm sorry, I can't cancel order #W1234567: it has already shipped.",
    )
    assert bye.signal is Signal.STOP


def test_a_hostile_customer_pushes_back_once_on_a_refusal() -> None:
    customer = _customer("emotion=frustration:high,politeness=low")
    refusal = "I'm sorry, I can't cancel order #W1234567: it has already shipped."
    push, bye = _talk(customer, refusal, "I can't make an exception: it has already shipped.")
    assert push.content == SAY["push_back"][0]
    assert bye.signal is Signal.STOP
    assert customer.moves["push_back"] == 1
