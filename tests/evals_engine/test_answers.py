"""The reading of a customer's answer to a proposal (evals.engine.understanding.answers): a
hand-labelled corpus, every answer the scripted customers can give under every persona, and
the guard and the reference agent acting on the same reading."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evals.domains import get_domain
from evals.engine.messages import Message
from evals.engine.persona import PRESETS, Emotion, Level, Persona, parse_persona
from evals.engine.policy import check_confirmation, customer_answer
from evals.engine.sandbox import ReferenceAgentBase
from evals.engine.sandbox.slips import typos
from evals.engine.understanding.answers import Answer, read_answer, repair_typos

CORPUS = Path(__file__).parent / "data" / "answers.tsv"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _corpus() -> list[tuple[Answer, str]]:
    rows = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, text = line.split("\t")
            rows.append((Answer(label), text))
    return rows


def test_the_corpus_covers_every_answer_in_english_and_chinese():
    rows = _corpus()
    counts = Counter((label, bool(CJK.search(text))) for label, text in rows)
    assert len(rows) >= 200
    for label in Answer:
        assert counts[label, False] >= 10, f"too few English {label} answers"
        assert counts[label, True] >= 10, f"too few Chinese {label} answers"


def test_every_answer_in_the_corpus_is_read_as_labelled():
    misses = [
        f"{label} read as {got}: {text!r}"
        for label, text in _corpus()
        if (got := read_answer(text).answer) is not label
    ]
    assert not misses, f"{len(misses)} misread:\n" + "\n".join(misses)


# -- every answer a scripted customer can give ------------------------------------------------


class _Replay(random.Random):
    """A Random whose decisions are given: `random()` (a `chance`) and `randrange` take
    their outcomes from `script` and record how many each decision had, so that
    `every_output` can walk all of them."""

    def __init__(self, script: list[int]) -> None:
        super().__init__(0)
        self.script = script
        self.used: list[int] = []  # number of outcomes of each decision taken

    def _next(self, outcomes: int) -> int:
        i = len(self.used)
        self.used.append(outcomes)
        return self.script[i] if i < len(self.script) else 0

    def random(self) -> float:
        return 0.0 if self._next(2) == 0 else 0.999999  # outcome 0: the chance happens

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        n = start if stop is None else stop - start
        return self._next(n) + (0 if stop is None else start)


def every_output(make: Callable[[random.Random], str]) -> set[str]:
    """Every text `make` can return, over every outcome of every random decision it takes."""
    outputs: set[str] = set()
    script: list[int] = []
    while True:
        rng = _Replay(script)
        outputs.add(make(rng))
        script = script + [0] * (len(rng.used) - len(script))
        while script and script[-1] + 1 >= rng.used[len(script) - 1]:
            script.pop()
        if not script:
            return outputs
        script[-1] += 1


DOMAINS = ("retail", "membership")
# Every emotion's openers, the urgency and politeness closers, and the traits that shape a
# membership yes (hesitant when incoherent, hurried when urgent, bundled when impatient).
ALL_TRAITS = "impatience=high,incoherence=high,urgency=high,politeness=high"
STYLE_PERSONAS = [
    *PRESETS.values(),
    *(
        parse_persona(f"emotion={e.value}:high,urgency=high,politeness=high")
        for e in Emotion
        if e is not Emotion.NONE
    ),
]


def _user(domain_name: str, task: Any, persona: Persona, rng: random.Random) -> Any:
    domain = get_domain(domain_name)
    assert domain.scripted_user is not None
    user: Any = domain.scripted_user(
        domain=domain, scenario=task.scenario, persona=persona, params={}, seed=0
    )
    user.rng = rng
    return user


# The domain's own yes to a summary that matches (membership's names the request confirmed,
# so that a bundled next request is another one).
SAY_YES: dict[str, Callable[[Any], str]] = {
    "retail": lambda user: user.plain_yes(),
    "membership": lambda user: user._affirm(user._focus()),
}


def _answers(domain_name: str, say: Callable[[Any], str]) -> set[str]:
    """Every answer `say` draws from the domain's scripted customer, over all its tasks."""
    persona = parse_persona(ALL_TRAITS)
    found: set[str] = set()
    for task in get_domain(domain_name).tasks():

        def answer(rng: random.Random, task: Any = task) -> str:
            return say(_user(domain_name, task, persona, rng))

        found |= every_output(answer)
    return found


def _templates() -> set[str]:
    """Everything `style()` can wrap around a text, for every persona (typos aside)."""
    task = get_domain("retail").tasks()[0]
    out: set[str] = set()
    for persona in STYLE_PERSONAS:
        calm = replace(persona, incoherence=Level.LOW)

        def styled(rng: random.Random, calm: Persona = calm) -> str:
            return str(_user("retail", task, calm, rng).style("\x00"))

        out |= every_output(styled)
    return out


@pytest.fixture(scope="module")
def templates() -> set[str]:
    return _templates()


@pytest.mark.parametrize("domain_name", DOMAINS)
def test_every_yes_a_scripted_customer_can_say_confirms_under_every_opener_and_closer(
    domain_name, templates
):
    affirmations = _answers(domain_name, SAY_YES[domain_name])
    misread = sorted(
        {
            f"{read_answer(text).answer}: {text!r}"
            for a in affirmations
            for t in templates
            if not read_answer(text := t.replace("\x00", a)).confirms
        }
    )
    assert len(affirmations) >= 10 and len(templates) > 20
    assert not misread, "\n".join(misread[:40])


@pytest.mark.parametrize("domain_name", DOMAINS)
def test_every_no_a_scripted_customer_can_say_is_a_no_or_a_change(domain_name, templates):
    declines = _answers(domain_name, lambda user: user._decline())
    misread = sorted(
        {
            f"{read_answer(text).answer}: {text!r}"
            for d in declines
            for t in templates
            if read_answer(text := t.replace("\x00", d)).answer not in (Answer.NO, Answer.CHANGE)
        }
    )
    assert len(declines) > 10
    assert not misread, "\n".join(misread[:40])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    domain_name=st.sampled_from(DOMAINS),
    task_index=st.integers(min_value=0, max_value=10_000),
    persona=st.sampled_from([*STYLE_PERSONAS, parse_persona(ALL_TRAITS)]),
    rng=st.randoms(use_true_random=False),
    extra_typos=st.sampled_from([0.0, 0.08, 0.3]),
)
def test_a_scripted_yes_styled_by_any_persona_with_typos_still_confirms(
    domain_name, task_index, persona, rng, extra_typos
):
    tasks = get_domain(domain_name).tasks()
    user = _user(domain_name, tasks[task_index % len(tasks)], persona, rng)
    yes = user.style(SAY_YES[domain_name](user))
    decline = user.style(user._decline())
    if extra_typos:
        yes = typos(yes, extra_typos, user.rng)
        decline = typos(decline, extra_typos, user.rng)
    assert read_answer(yes).confirms, yes
    assert read_answer(decline).answer in (Answer.NO, Answer.CHANGE), decline


@pytest.mark.parametrize(
    ("typo", "word"),
    [("huryr", "hurry"), ("plaese", "please"), ("rihgt", "right"), ("worreid", "worried")],
)
def test_it_puts_back_a_typo_of_a_lexicon_word(typo, word):
    assert repair_typos(f"yes, {typo} up") == f"yes, {word} up"


def test_it_leaves_words_outside_the_lexicons_alone():
    assert repair_typos("the bakcpack and the lmap") == "the bakcpack and the lmap"


# -- with the proposal ------------------------------------------------------------------------

PROPOSAL = (
    "To confirm: I will submit a refund request of $12.50 for the damaged lamp on order "
    "#W1234567. Shall I proceed? (yes/no)"
)


def test_a_yes_naming_another_amount_is_a_change_to_the_proposal():
    reading = read_answer("Yes, $20.", proposal=PROPOSAL)
    assert reading.answer is Answer.CHANGE and reading.unshown == ("20",)


def test_a_yes_repeating_the_proposed_values_confirms():
    reading = read_answer("Yes, $12.50 on #W1234567 is right.", proposal=PROPOSAL)
    assert reading.answer is Answer.YES and not reading.unshown


def test_a_request_bundled_after_the_yes_is_an_aside_not_a_change():
    reply = "Sure, do it. Also, I was charged 14.00 GBP for a class drop-in on my May invoice."
    reading = read_answer(reply, proposal=PROPOSAL)
    assert reading.confirms and reading.values == ()
    assert reading.aside.startswith("Also, I was charged 14.00 GBP")


def test_the_guard_accepts_a_hurried_yes_and_a_yes_with_a_bundled_request():
    for reply in (
        "Yes, but hurry up, please.",
        "Yes. Also, I'd like a refund of $40 on #W7654321.",
    ):
        assert (
            check_confirmation(
                summary=PROPOSAL,
                reply=reply,
                words=("refund",),
                key_values={"order_id": "#W1234567", "amount": "12.50"},
            )
            is None
        ), reply


# -- the guard and the agent act on one reading ------------------------------------------------


class _Agent(ReferenceAgentBase):
    """Proposes one refund, then acts on the customer's reply as every reference agent does."""

    def __init__(self) -> None:
        super().__init__(domain=None, params={}, seed=0)
        self.heard: list[str] = []

    def observe_user(self, text: str) -> None:
        self.heard.append(text)

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        pass

    def declined(self, name: str, args: dict[str, Any]) -> None:
        pass

    def plan(self) -> Message:
        return self.propose(
            "request_refund",
            {"order_id": "#W1234567", "amount": "12.50"},
            "To confirm: I will submit a refund request of $12.50 for the damaged lamp on "
            "order #W1234567.",
        )


def _agent_and_guard(reply: str) -> tuple[bool, bool, bool]:
    """(the agent writes, the guard accepts the confirmation, `customer_answer` confirms)
    after the agent's proposal and `reply`."""
    agent = _Agent()
    messages = [Message.user("My lamp arrived damaged.")]
    messages.append(agent.respond(messages, []))
    messages.append(Message.user(reply))
    step = agent.respond(messages, [])
    verdict = check_confirmation(
        summary=messages[1].content,
        reply=reply,
        words=("refund",),
        key_values={"order_id": "#W1234567", "amount": "12.50"},
    )
    return bool(step.tool_calls), verdict is None, customer_answer(messages).confirms


def test_the_reference_agent_writes_exactly_when_the_guard_accepts_the_reply():
    replies = [text for _, text in _corpus()] + ["Yes, $20.", "Yes, $12.50 it is."]
    disagreements = [
        f"agent {'writes' if writes else 'waits'}, guard {'accepts' if ok else 'blocks'}: {r!r}"
        for r in replies
        for writes, ok, reading in [_agent_and_guard(r)]
        if not (writes == ok == reading)
    ]
    assert not disagreements, "\n".join(disagreements)


def test_the_agent_writes_on_a_yes_and_hears_the_request_bundled_after_it():
    agent = _Agent()
    messages = [Message.user("My lamp arrived damaged.")]
    messages.append(agent.respond(messages, []))
    messages.append(Message.user("Yes, go ahead. Also, I'd like to return order #W7654321."))
    step = agent.respond(messages, [])
    assert [c.name for c in step.tool_calls] == ["request_refund"]
    assert agent.heard[-1] == "Also, I'd like to return order #W7654321."


def test_a_slip_typed_twice_is_still_read():
    """An incoherent customer's typo pass can hit a word its style already mistyped: "hurry"
    -> "hrury" -> "rhury". Two swaps of adjacent letters are repaired like one (found by the
    property test above with extra typos)."""
    from evals.engine.understanding.answers import repair_typos

    assert read_answer("Yes, but rhury up, please. Thank you!").confirms
    assert repair_typos("rhury") == "hurry" and repair_typos("huryr") == "hurry"
    assert repair_typos("hurry") == "hurry"  # a word of the lexicons stays as it is
