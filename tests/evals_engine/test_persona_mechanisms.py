"""Every persona dimension acts through a mechanism that can make an agent fail.

Two kinds of test, on retail and membership with a fixed seed:

- per dimension, the reference agent against the persona at its high and low setting: the
  mechanism changes the trajectories in the expected direction (more turns, the persona's own
  moves — why-questions, read-backs, worries, push-backs, corrections — and, for patience,
  more abandonments), while the reference agent still passes where the mechanism is fair;
- per mechanism, a weak agent written to fail it (it refuses without a reason, says "done"
  without stating what changed, ignores a worry, brushes off a push-back, repeats a question,
  takes an extra round per write, gives up when a detail does not match): the customer with
  the trait fails it, the customer without the trait does not, and the reference agent and
  its rewordings (phrasing en-2, en-3, zh) pass the customer with the trait.

The weak agents wrap the domain's reference agent and change one behaviour, so each failure
is that behaviour's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine import registry
from evals.engine.errors import EngineError
from evals.engine.messages import Message, Role, Signal, TerminationReason
from evals.engine.persona import Language, Level, parse_persona
from evals.engine.runner import MemorySink, RunSpec, run
from evals.engine.runner.records import TrialRecord
from evals.engine.sandbox.agent import PUSH_BACK, READ_BACK, WHY_NOT, WORRY
from evals.engine.sandbox.moves import repeat_tolerance, turn_budget
from evals.engine.sandbox.phrases import BASE
from evals.engine.task import TaskKind
from evals.engine.understanding.utterances import ActKind, UtteranceReader

DOMAINS = ("retail", "membership")
REWORDINGS = ("en", "en-2", "en-3", "zh")
SEED = 7
_READER = UtteranceReader()


@pytest.fixture(autouse=True)
def _roles() -> None:
    """Pure Python: no database, so the root conftest's role sync is skipped."""


# -- running ----------------------------------------------------------------------------------


def _run(
    persona: str,
    *,
    agent: str = "sandbox/reference",
    params: Mapping[str, Any] | None = None,
    domains: Sequence[str] = DOMAINS,
    tasks: Sequence[str] = (),
    trials: int = 1,
) -> list[TrialRecord]:
    spec = RunSpec(
        domains=tuple(domains),
        personas=(persona,),
        trials=trials,
        seed=SEED,
        task_ids=tuple(tasks),
        agent=agent,
        agent_params=dict(params or {}),
    )
    sink = MemorySink()
    run(spec, sink, ks=(1,))
    assert sink.records
    return list(sink.records)


def _said(record: TrialRecord) -> list[str]:
    assert record.trajectory is not None
    return [m.get("content") or "" for m in record.trajectory["messages"] if m["role"] == "user"]


def _count(records: Sequence[TrialRecord], *lines: str) -> int:
    """How many customer messages contain one of `lines`."""
    return sum(any(line in text for line in lines) for r in records for text in _said(r))


EN, ZH = BASE[Language.EN], BASE[Language.ZH_HANS]
REASSURANCE = EN["reassurance"]
MOVES = {k.removeprefix("move:"): (str(EN[k]), str(ZH[k])) for k in EN if k.startswith("move:")}


def _moves(key: str) -> tuple[str, ...]:
    return MOVES[key]


def _abandoned(records: Sequence[TrialRecord]) -> int:
    return sum(r.termination == TerminationReason.USER_ABANDON for r in records)


def _passed(records: Sequence[TrialRecord]) -> float:
    return sum(r.reward for r in records) / len(records)


def _turns(records: Sequence[TrialRecord]) -> float:
    return sum(r.agent_turns for r in records) / len(records)


def _tasks(domain: str, kind: TaskKind, *, limit: int = 6, variant: str = "-email") -> list[str]:
    """The first tasks of `kind` in `domain` whose identity variant is `variant` (by email,
    by default)."""
    ids = [t.id for t in get_domain(domain).tasks() if t.kind is kind and t.id.endswith(variant)]
    assert ids, (domain, kind)
    return ids[:limit]


def _last_user(messages: Sequence[Message]) -> str:
    return next((m.content for m in reversed(messages) if m.role is Role.USER), "")


# -- the weak agents ----------------------------------------------------------------------------


class _Weak:
    """The domain's reference agent with one behaviour changed (`change`)."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        if domain.reference_agent is None:
            raise EngineError(f"Domain {domain.name} has no reference agent to wrap")
        self.inner = domain.reference_agent(domain=domain, params=params, seed=seed)
        self.last = ""

    @classmethod
    def factory(cls, *, domain: Any, params: Mapping[str, Any], seed: int) -> Any:
        return cls(domain=domain, params=params, seed=seed)

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        own = self.answer(_last_user(messages), messages)
        if own is not None:
            return own
        reply = self.inner.respond(messages, tools)
        if reply.content and not reply.tool_calls:
            reply = self.change(reply)
            self.last = reply.content
        return reply

    def answer(self, user: str, messages: Sequence[Message]) -> Message | None:
        """Its own answer to the customer's last message, instead of the reference's."""
        return None

    def change(self, reply: Message) -> Message:
        return reply


class BareRefusal(_Weak):
    """Refuses without ever saying why."""

    def answer(self, user: str, messages: Sequence[Message]) -> Message | None:
        if WHY_NOT.search(user) or PUSH_BACK.search(user):
            return Message.assistant("I'm not able to help with that.")
        return None

    def change(self, reply: Message) -> Message:
        refuses = re.search(r"\bcan'?not\b|\bcan't\b|\bunable\b|无法", reply.content)
        if _READER.read(reply.content).has(ActKind.REFUSE) or refuses:
            return Message.assistant(
                "I'm sorry, I can't do that. Is there anything else I can help you with?"
            )
        return reply


class BareDone(_Weak):
    """Says "done" without stating what changed, and cannot say it when asked."""

    def answer(self, user: str, messages: Sequence[Message]) -> Message | None:
        if READ_BACK.search(user):
            return Message.assistant("It's all taken care of.")
        return None

    def change(self, reply: Message) -> Message:
        reading = _READER.read(reply.content)
        if reading.has(ActKind.DONE) and not reading.has(ActKind.CONFIRM):
            return Message.assistant("Done! Is there anything else I can help you with?")
        return reply


class IgnoresWorry(_Weak):
    """Answers a worry with filler."""

    def answer(self, user: str, messages: Sequence[Message]) -> Message | None:
        if WORRY.search(user):
            return Message.assistant("Let me continue.")
        return None


class BrushesOff(_Weak):
    """Answers a push-back on a refusal by moving on."""

    def answer(self, user: str, messages: Sequence[Message]) -> Message | None:
        if PUSH_BACK.search(user):
            return Message.assistant("Is there anything else I can help you with?")
        return None


class AsksTwiceMore(_Weak):
    """Asks for the customer's identity three times before it takes the answer in."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.repeats = 0

    def answer(self, user: str, messages: Sequence[Message]) -> Message | None:
        if self.repeats < 2 and _READER.read(self.last).has(ActKind.VERIFY):
            self.repeats += 1
            return Message.assistant(self.last)
        return None


class DoubleChecks(_Weak):
    """Asks for every go-ahead twice: one more round per write."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.checked = ""

    def answer(self, user: str, messages: Sequence[Message]) -> Message | None:
        pending = self.inner.pending
        if pending is not None and self.checked != pending[2]:
            self.checked = pending[2]
            self.last = f"Just to be sure: {pending[2]} Shall I proceed? (yes/no)"
            return Message.assistant(self.last)
        return None


class GivesUpOnMismatch(_Weak):
    """Ends the conversation when what the customer gave matches nothing."""

    def change(self, reply: Message) -> Message:
        if _READER.read(reply.content).has(ActKind.NOT_FOUND) or self.mismatch(reply.content):
            return Message.assistant(reply.content, signal=Signal.END)
        return reply

    @staticmethod
    def mismatch(text: str) -> bool:
        low = text.lower()
        return any(
            cue in low for cue in ("couldn't find", "doesn't match", "nobody with", "找不到")
        )


WEAK = {
    "bare-refusal": BareRefusal,
    "bare-done": BareDone,
    "ignores-worry": IgnoresWorry,
    "brushes-off": BrushesOff,
    "asks-twice-more": AsksTwiceMore,
    "double-checks": DoubleChecks,
    "gives-up-on-mismatch": GivesUpOnMismatch,
}
for _name, _cls in WEAK.items():
    if f"test/weak:{_name}" not in registry.agent_names():
        registry.register_agent(f"test/weak:{_name}", _cls.factory)


def _weak(name: str) -> str:
    return f"test/weak:{name}"


# -- the numbers --------------------------------------------------------------------------------


def test_urgency_shortens_the_turn_budget_and_impatience_more():
    budget = {
        spec: turn_budget(parse_persona(spec))
        for spec in (
            "baseline",
            "urgency=high",
            "impatience=medium",
            "impatience=high",
            "impatience=high,urgency=high",
        )
    }
    assert budget["baseline"] > budget["urgency=high"] > budget["impatience=medium"]
    assert budget["impatience=medium"] > budget["impatience=high"]
    assert budget["impatience=high"] > budget["impatience=high,urgency=high"] == 6


def test_anger_and_rudeness_lower_the_tolerance_of_a_repeated_question_and_sadness_raises_it():
    tolerance = {
        spec: repeat_tolerance(parse_persona(spec))
        for spec in (
            "emotion=anger:high,politeness=low",
            "emotion=anger:high,politeness=high",
            "emotion=sadness:high,politeness=low",
            "impatience=high,emotion=anger:high,politeness=low",
        )
    }
    assert tolerance["emotion=anger:high,politeness=low"] == 2
    assert tolerance["emotion=anger:high,politeness=high"] == 3
    assert tolerance["emotion=sadness:high,politeness=low"] == 4
    assert tolerance["impatience=high,emotion=anger:high,politeness=low"] == 1


# -- each dimension changes the reference agent's trajectories ---------------------------------


def test_skepticism_asks_why_and_lengthens_the_conversation_and_the_reference_agent_passes():
    high, low = _run("skepticism=high"), _run("skepticism=low")
    whys = ("Why do you need", "Why not?", "为什么不行")
    assert _count(high, *whys) > _count(low, *whys) == 0
    assert _turns(high) > _turns(low)
    assert _abandoned(high) == _abandoned(low) == 0
    assert _passed(high) == 1.0


def test_low_trust_asks_for_a_read_back_after_each_change_and_the_reference_agent_restates_it():
    high, low = _run("trust=low"), _run("trust=high")
    assert _count(high, *_moves("read_back")) > 20
    assert _count(low, *_moves("read_back")) == 0
    assert _count(high, *_moves("read_back_again")) == 0  # the first answer always did
    assert _turns(high) > _turns(low)
    assert _abandoned(high) == 0
    assert _passed(high) == 1.0


def test_anxiety_asks_for_reassurance_and_the_reference_agent_answers_it():
    high, low = _run("emotion=anxiety:high"), _run("emotion=none")
    assert _count(high, *REASSURANCE) > 10
    assert _count(low, *REASSURANCE) == 0
    assert _count(high, *_moves("worry_again")) == 0
    assert _turns(high) > _turns(low)
    assert _abandoned(high) == 0
    assert _passed(high) == 1.0


def test_an_angry_rude_customer_pushes_back_on_refusals_a_sad_or_polite_one_does_not():
    angry_rude = _run("emotion=anger:high,politeness=low")
    sad_rude = _run("emotion=sadness:high,politeness=low")
    angry_polite = _run("emotion=anger:high,politeness=high")
    push = _moves("push_back")
    assert _count(angry_rude, *push) > 5
    assert _count(sad_rude, *push) == _count(angry_polite, *push) == 0
    assert _turns(angry_rude) > max(_turns(sad_rude), _turns(angry_polite))
    assert _passed(angry_rude) == 1.0  # it holds the refusal, with its reason


def test_confusion_and_incoherence_give_wrong_details_and_correct_them():
    corrections = ("my mistake",)
    for trait in ("confusion", "incoherence"):
        high, low = _run(f"{trait}=high"), _run(f"{trait}=low")
        assert _count(high, *corrections) > _count(low, *corrections), trait
        assert _turns(high) > _turns(low), trait
    assert _passed(_run("confusion=high")) == 1.0


def test_impatience_and_urgency_make_a_long_conversation_end_in_more_abandonments():
    # Long conversations (typos, why-questions, read-backs): where the budgets bite.
    long = "incoherence=high,skepticism=high,trust=low"
    patient = _run(f"{long},impatience=low")
    impatient = _run(f"{long},impatience=high,urgency=low")
    urgent = _run(f"{long},impatience=high,urgency=high")
    assert _abandoned(patient) == 0
    assert _abandoned(urgent) > _abandoned(impatient) > _abandoned(patient)
    assert _passed(urgent) < _passed(impatient) < _passed(patient) == 1.0


def test_a_persona_without_the_traits_says_what_it_said_before_the_moves_existed():
    # The baseline customer draws no random number for a move it does not make: its words
    # are those of the default suite's calibration run (docs/golive.md), turn for turn.
    records = _run("baseline", tasks=_tasks("retail", TaskKind.REFUSAL), domains=("retail",))
    for record in records:
        said = " ".join(_said(record))
        for key in ("read_back", "why_not", "push_back", "worry_again"):
            assert MOVES[key][0] not in said
        assert not any(line in said for line in REASSURANCE)


# -- each mechanism fails a weak agent and passes the reference agent, reworded or not ----------


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_skeptic_leaves_an_agent_that_refuses_without_a_reason(domain):
    tasks = _tasks(domain, TaskKind.REFUSAL)
    skeptic = _run("skepticism=high", agent=_weak("bare-refusal"), domains=(domain,), tasks=tasks)
    trusting = _run("skepticism=low", agent=_weak("bare-refusal"), domains=(domain,), tasks=tasks)
    assert _abandoned(skeptic) == len(skeptic)
    assert all(r.failure == "user_abandoned" for r in skeptic)
    assert _abandoned(trusting) == 0
    for phrasing in REWORDINGS:
        reference = _run(
            "skepticism=high", params={"phrasing": phrasing}, domains=(domain,), tasks=tasks
        )
        assert _passed(reference) == 1.0, phrasing


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_low_trust_customer_leaves_an_agent_that_cannot_say_what_it_changed(domain):
    tasks = _tasks(domain, TaskKind.ACTION)
    distrust = _run("trust=low", agent=_weak("bare-done"), domains=(domain,), tasks=tasks)
    trust = _run("trust=high", agent=_weak("bare-done"), domains=(domain,), tasks=tasks)
    assert _abandoned(distrust) == len(distrust)
    assert _count(distrust, *_moves("read_back_again")) == len(distrust)  # asked twice
    assert _passed(trust) == 1.0
    for phrasing in REWORDINGS:
        reference = _run("trust=low", params={"phrasing": phrasing}, domains=(domain,), tasks=tasks)
        assert _passed(reference) == 1.0, phrasing


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_anxious_customer_leaves_an_agent_that_ignores_its_worry(domain):
    tasks = _tasks(domain, TaskKind.ACTION)
    anxious = _run(
        "emotion=anxiety:high", agent=_weak("ignores-worry"), domains=(domain,), tasks=tasks
    )
    calm = _run("emotion=none", agent=_weak("ignores-worry"), domains=(domain,), tasks=tasks)
    worried = [r for r in anxious if _count([r], *REASSURANCE)]
    assert worried
    # A worry said while a proposal waits gets the proposal again from the reference agent
    # underneath; one said with nothing pending gets the filler, twice, and the customer goes.
    assert _abandoned(anxious) > 0
    assert all(_count([r], *_moves("worried_off")) for r in anxious if r.reward == 0)
    assert _passed(calm) == 1.0
    for phrasing in REWORDINGS:
        reference = _run(
            "emotion=anxiety:high", params={"phrasing": phrasing}, domains=(domain,), tasks=tasks
        )
        assert _passed(reference) == 1.0, phrasing


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_angry_rude_customer_leaves_an_agent_that_brushes_off_its_push_back(domain):
    tasks = _tasks(domain, TaskKind.REFUSAL)
    rude = "emotion=anger:high,politeness=low"
    angry = _run(rude, agent=_weak("brushes-off"), domains=(domain,), tasks=tasks)
    polite = _run(
        "emotion=anger:high,politeness=high",
        agent=_weak("brushes-off"),
        domains=(domain,),
        tasks=tasks,
    )
    # A refusal the reader does not see as one (membership-033's "can't cancel without the
    # fee": "without" reads as a condition) gets no push-back; every other one does.
    pushed = [r for r in angry if _count([r], *_moves("push_back"))]
    assert len(pushed) >= len(angry) - 1
    assert all(r.termination == TerminationReason.USER_ABANDON for r in pushed)
    assert _count(pushed, *_moves("brushed_off")) == len(pushed)
    assert _passed(polite) == 1.0
    for phrasing in REWORDINGS:
        reference = _run(rude, params={"phrasing": phrasing}, domains=(domain,), tasks=tasks)
        assert _passed(reference) == 1.0, phrasing


def _asked_identity(record: TrialRecord) -> int:
    assert record.trajectory is not None
    return sum(
        _READER.read(m.get("content") or "").has(ActKind.VERIFY)
        for m in record.trajectory["messages"]
        if m["role"] == "assistant"
    )


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_angry_rude_customer_leaves_an_agent_that_repeats_its_question_a_sad_one_stays(domain):
    tasks = _tasks(domain, TaskKind.ACTION)
    agent = _weak("asks-twice-more")
    angry = _run("emotion=anger:high,politeness=low", agent=agent, domains=(domain,), tasks=tasks)
    sad = _run("emotion=sadness:high,politeness=low", agent=agent, domains=(domain,), tasks=tasks)
    polite = _run("emotion=anger:high,politeness=high", agent=agent, domains=(domain,), tasks=tasks)
    # Where the customer gave its identity before being asked, nothing is repeated.
    repeated = [r for r in angry if _asked_identity(r) >= 3]
    assert len(repeated) >= 3
    assert all(r.termination == TerminationReason.USER_ABANDON for r in repeated)
    assert _abandoned(sad) == _abandoned(polite) == 0
    assert _passed(sad) == _passed(polite) == 1.0


def test_an_urgent_customer_leaves_an_agent_that_takes_a_round_more_per_write():
    # Retail's two-request conversations are long enough for the urgent customer's budget to
    # bite; membership's are not (its double-checking agent stays within 6 turns).
    multi = [
        t.id
        for t in get_domain("retail").tasks()
        if t.kind is TaskKind.ACTION and t.id.endswith("-email") and "+" in t.id
    ][:6]
    assert multi
    agent = _weak("double-checks")
    urgent = _run("impatience=high,urgency=high", agent=agent, domains=("retail",), tasks=multi)
    unhurried = _run("impatience=high,urgency=low", agent=agent, domains=("retail",), tasks=multi)
    assert _abandoned(urgent) > _abandoned(unhurried) == 0
    assert _passed(urgent) < _passed(unhurried) == 1.0
    # en-3 is left out: on retail-042 its customer answers a refund-method question for the
    # request just settled and is then re-asked; it fails the same way on main, before the
    # urgency cut (the "impatient" preset's budget is unchanged), see the personas report.
    for phrasing in ("en", "en-2", "zh"):
        reference = _run(
            "impatience=high,urgency=high",
            params={"phrasing": phrasing},
            domains=("retail",),
            tasks=multi,
        )
        assert _passed(reference) == 1.0, phrasing


@pytest.mark.parametrize(("domain", "variant"), [("retail", "-email"), ("membership", "-dob")])
def test_a_confused_customer_fails_an_agent_that_gives_up_when_a_detail_does_not_match(
    domain, variant
):
    # Retail's confused customer slips a digit of its order id, membership's its birth date
    # (the tasks where it proves its identity by member number and date of birth).
    tasks = _tasks(domain, TaskKind.ACTION, variant=variant)
    agent = _weak("gives-up-on-mismatch")
    confused = _run("confusion=high", agent=agent, domains=(domain,), tasks=tasks, trials=2)
    clear = _run("confusion=low", agent=agent, domains=(domain,), tasks=tasks, trials=2)
    assert _passed(confused) < _passed(clear) == 1.0
    for phrasing in REWORDINGS:
        reference = _run(
            "confusion=high", params={"phrasing": phrasing}, domains=(domain,), tasks=tasks
        )
        assert _passed(reference) == 1.0, phrasing


def test_the_persona_moves_are_said_in_the_customers_language():
    persona = parse_persona("trust=low,language=zh-Hans")
    assert persona.trust is Level.LOW
    for english, chinese in MOVES.values():
        assert english.isascii()
        assert any("\u4e00" <= ch <= "\u9fff" for ch in chinese)


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_chinese_customer_makes_its_moves_in_chinese_and_the_reference_agent_answers(domain):
    tasks = _tasks(domain, TaskKind.ACTION) + _tasks(domain, TaskKind.REFUSAL)
    records = _run("skeptical,language=zh-Hans", domains=(domain,), tasks=tasks)
    assert _count(records, MOVES["read_back"][1]) > 0
    assert _count(records, MOVES["read_back"][0]) == 0
    assert _passed(records) == 1.0


def test_an_agent_that_gives_in_to_a_push_back_gets_the_yes_a_real_customer_gives():
    # The customer wants what it asked for; the guard and the oracle, not the customer, judge
    # an agent that caves: the refused request is open again when the agent proposes it.
    from evals.domains.retail.scripted import RetailScriptedUser
    from evals.engine.understanding.answers import read_answer

    task = next(
        t
        for t in get_domain("retail").tasks()
        if "refuse-cancel-delivered" in t.id and t.id.endswith("-email")
    )
    user = RetailScriptedUser(
        scenario=task.scenario, persona=parse_persona("emotion=anger:high,politeness=low"), seed=1
    )
    order = user.requests[0]["order_id"]
    messages = [Message.assistant("Hi! How can I help you today?")]
    messages.append(user.respond(messages))
    messages.append(
        Message.assistant(
            f"I'm sorry, I can't cancel order {order}: it is already delivered, and only pending "
            "orders can be cancelled. Is there anything else I can help you with?"
        )
    )
    push = user.respond(messages)
    assert push.content == MOVES["push_back"][0]
    messages += [
        push,
        Message.assistant(
            f"Fine, just this once. To confirm: I will cancel order {order}. Shall I proceed?"
        ),
    ]
    answer = user.respond(messages)
    assert answer.signal is Signal.NONE
    assert read_answer(answer.content).confirms, answer.content
