"""Base of scripted user simulators: how a persona shapes what the customer says and when an
agent loses it.

The domain subclass decides *what* to say from its scenario and the agent's text
(`reply(agent_text) -> (text, signal)`); this base adds *how*, and every persona dimension acts
through a mechanism that can make an agent fail (docs/evals-engine.md, "Personas", has the
table):

- patience: impatience and urgency set the turn budget (`turn_budget`), impatience the
  tolerance for a repeated question (`repeat_tolerance`);
- skepticism: asks why before giving personal data (`skeptical_now`), and asks "Why not?"
  after a refusal that gives no reason, leaving if the answer still gives none;
- confusion and incoherence: wrong details, corrected when the agent echoes them (`confused`);
  typos;
- anxiety: asks for reassurance (`wants_reassurance`);
- trust: a low-trust customer told that something was done asks to hear exactly what changed,
  accepts an answer that restates the action and its ids and amounts, asks once more, then
  leaves;
- emotion family and politeness: an angry or frustrated, impolite customer tolerates one
  repeated question less and pushes back once on a refusal; a sad or anxious one tolerates
  one more.

The trust, skepticism and push-back moves live in `respond`, before the domain's `reply`: the
agent's message is read with `self.reader` (an `UtteranceReader`; a domain may set its own,
with its entities), and while the customer waits for an answer of its own the domain's
`reply` is not called; once the answer comes it gets the message it was owed, followed by
the agent's answer, so its `reply` contract is unchanged.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evals.engine.messages import Message, Role, Signal
from evals.engine.persona import Emotion, Language, Level, Persona
from evals.engine.understanding.utterances import ActKind, Reading, UtteranceReader

# Agent turns a customer waits for: by impatience, less by urgency (impatience=high with
# urgency=high, the "impatient" preset, gets 6).
PATIENCE = {Level.LOW: 16, Level.MEDIUM: 10, Level.HIGH: 8}
URGENCY_CUT = {Level.LOW: 0, Level.MEDIUM: 1, Level.HIGH: 2}
# Times the same question is put up with: by impatience, shifted by the emotion (never below 1).
REPEAT_TOLERANCE = {Level.LOW: 3, Level.MEDIUM: 2, Level.HIGH: 1}
HOSTILE = (Emotion.ANGER, Emotion.FRUSTRATION)
TOLERANT = (Emotion.SADNESS, Emotion.ANXIETY)
# Chance that a customer asks for a read-back after "done", by trust; "Why not?" after a
# refusal without a reason, by skepticism.
READ_BACK_P = {Level.LOW: 1.0, Level.MEDIUM: 0.25, Level.HIGH: 0.0}
WHY_NOT_P = {Level.LOW: 0.0, Level.MEDIUM: 0.5, Level.HIGH: 1.0}
EMOTION_OPENERS: dict[Emotion, list[str]] = {
    Emotion.ANGER: [
        "This is ridiculous.",
        "I'm really angry about this.",
        "Honestly, this is unacceptable.",
    ],
    Emotion.FRUSTRATION: ["Ugh.", "This is so frustrating.", "Come on."],
    Emotion.ANXIETY: [
        "I'm really worried about this.",
        "Sorry, I'm a bit stressed.",
        "I'm nervous about my money.",
    ],
    Emotion.SADNESS: ["It's been a rough week.", "I'm a bit down about this.", "Sigh."],
    Emotion.DISTRUST: [
        "I hope you'll actually fix this.",
        "Last time nobody helped me.",
        "I'm skeptical of this process.",
    ],
}
ABANDON = [
    "Forget it, I'll go somewhere else.",
    "This is taking too long. Bye.",
    "I don't have time for this. Goodbye.",
    "You already asked me that. I'm done.",
]
REASSURANCE = [
    "Are you sure this will work? I really need my money back.",
    "Sorry, just to be sure: this will definitely be sorted, right?",
    "Will this really go through? I'm worried.",
]
INTENSITY_P = {Level.LOW: 0.15, Level.MEDIUM: 0.4, Level.HIGH: 0.75}
# The persona's own moves, by language: (English, Chinese).
SAY: dict[str, tuple[str, str]] = {
    "read_back": (
        "Can you read me back exactly what you changed?",
        "你能把具体改了什么复述给我吗？",
    ),
    "read_back_again": (
        "That doesn't tell me what you changed. Please read me back exactly what you changed: "
        "the action, the ids and the amounts.",
        "这没说清楚。请把具体改了什么复述给我：什么操作、哪个编号、多少钱。",
    ),
    "unverified": (
        "You can't even tell me what you changed. I'm done.",
        "你连改了什么都说不清楚。算了。",
    ),
    "why_not": ("Why not?", "为什么不行？"),
    "no_reason": ("You won't even tell me why. Goodbye.", "连原因都不说。再见。"),
    "push_back": (
        "That's not acceptable — can't you make an exception?",
        "这不能接受——你们就不能破例一次吗？",
    ),
}
# Words that give a reason, whatever the domain.
CAUSE = re.compile(
    r"\bbecause\b|\bsince\b|\bdue to\b|\bas per\b|\bpolicy\b|\bonly\b|\ballowed\b"
    r"|\balready\b|\boutside\b|\bexpired?\b|因为|由于|根据|政策|规定|只能|仅|已经|超过",
    re.IGNORECASE,
)
_READER = UtteranceReader()


@dataclass
class _Waiting:
    """A persona move waiting for the agent's answer: what was asked, the agent message the
    domain's `reply` has not seen yet, what a read-back must restate, and the asks so far."""

    move: str
    owed: str
    ids: frozenset[str] = frozenset()
    actions: frozenset[str] = frozenset()
    asks: int = 1


class ScriptedUserBase(ABC):
    # Its mistakes (a wrong digit, a swapped id) are persona behaviour it corrects when the
    # agent echoes them, not invented facts: the orchestrator does not re-check it.
    fidelity_checked = True

    def __init__(self, *, scenario: Any, persona: Persona, seed: int) -> None:
        self.scenario = scenario
        self.data = scenario.data
        self.persona = persona
        self.rng = random.Random(seed)
        self.agent_turns = 0
        self.questions: Counter[str] = Counter()
        self.reassurances = 0
        self.finished = False
        self.stated: set[int] = set()  # requests the customer has put into words
        self.mistakes: dict[str, str] = {}  # wrong value said -> right value
        self.fixed: set[str] = set()  # values already corrected once (no second mistake)
        self.reader = _READER  # a domain may set one that knows its entities and verbs
        self.waiting: _Waiting | None = None
        self.moves: Counter[str] = Counter()  # persona moves made: read_back, why_not, push_back

    # -- protocol ------------------------------------------------------------------------

    def respond(self, messages: Sequence[Message]) -> Message:
        agent_text = next((m.content for m in reversed(messages) if m.role is Role.ASSISTANT), "")
        first = not any(m.role is Role.USER for m in messages)
        if first:
            return Message.user(self.style(self.opening()))
        self.agent_turns += 1
        if self.waiting is not None:
            verdict = self._answered(self.waiting, self.reader.read(agent_text))
            if isinstance(verdict, Message):
                return verdict
            agent_text = f"{self.waiting.owed}\n{agent_text}"
            self.waiting = None
        elif self.agent_turns <= self.turn_budget():
            move = self._move(self.reader.read(agent_text), agent_text)
            if move is not None:
                return move
        text, signal = self.reply(agent_text)
        if signal is Signal.NONE and self.agent_turns > self.turn_budget():
            return Message.user(self.pick(ABANDON[:3]), Signal.ABANDON)
        if signal is Signal.NONE and self.wants_reassurance():
            self.reassurances += 1
            return Message.user(self.style(self.pick(REASSURANCE)))
        return Message.user(self.style(text) if signal is Signal.NONE else text, signal)

    # -- the persona's own moves ----------------------------------------------------------

    def say(self, key: str) -> str:
        english, chinese = SAY[key]
        return chinese if self.persona.language is Language.ZH_HANS else english

    def _move(self, reading: Reading, agent_text: str) -> Message | None:
        """Ask for a read-back after "done", "Why not?" after a refusal without a reason, or
        push back on a refusal; None when the persona lets the message through."""
        done = reading.of(ActKind.DONE)
        if done and self._sometimes(READ_BACK_P[self.persona.trust]):
            ids = {e.value for a in done for e in a.entities if _checkable(e.kind)}
            actions = {a.action for a in done if a.action}
            self.waiting = _Waiting("read_back", agent_text, frozenset(ids), frozenset(actions))
            self.moves["read_back"] += 1
            return Message.user(self.say("read_back"))
        refusals = reading.of(ActKind.REFUSE)
        if not refusals:
            return None
        if (
            not self.moves["why_not"]
            and not _gives_reason(reading)
            and self._sometimes(WHY_NOT_P[self.persona.skepticism])
        ):
            self.waiting = _Waiting("why_not", agent_text)
            self.moves["why_not"] += 1
            return Message.user(self.say("why_not"))
        if not self.moves["push_back"] and self.pushes_back():
            self.waiting = _Waiting("push_back", agent_text)
            self.moves["push_back"] += 1
            return Message.user(self.say("push_back"))
        return None

    def _sometimes(self, p: float) -> bool:
        """`chance(p)`, drawing from the seeded stream only when the outcome is in doubt, so a
        persona without the trait says exactly what it said before the move existed."""
        return p >= 1 or (p > 0 and self.chance(p))

    def _answered(self, waiting: _Waiting, reading: Reading) -> Message | None:
        """The customer's verdict on the agent's answer to its move: None when it accepts (the
        domain then replies), else its next message (ask again, or leave)."""
        if waiting.move == "read_back":
            if _restates(reading, waiting.ids, waiting.actions):
                return None
            if waiting.asks < 2:
                waiting.asks += 1
                return Message.user(self.say("read_back_again"))
            return Message.user(self.say("unverified"), Signal.ABANDON)
        if waiting.move == "why_not" and not _gives_reason(reading):
            return Message.user(self.say("no_reason"), Signal.ABANDON)
        # A push-back takes whatever comes: a policy-following agent declines again, and one
        # that gives in is caught by the guard and the oracle, not by the customer.
        return None

    def pushes_back(self) -> bool:
        """An angry or frustrated customer pushes back on a refusal when impolite, or when
        medium-polite and the emotion is intense."""
        p = self.persona
        if p.emotion not in HOSTILE:
            return False
        return p.politeness is Level.LOW or (
            p.politeness is Level.MEDIUM and p.emotion_intensity is Level.HIGH
        )

    def turn_budget(self) -> int:
        """Agent turns this customer waits for before walking away."""
        return PATIENCE[self.persona.impatience] - URGENCY_CUT[self.persona.urgency]

    def repeat_tolerance(self) -> int:
        """Times this customer answers the same question before walking away."""
        p = self.persona
        shift = 0
        if p.emotion in HOSTILE and p.politeness is Level.LOW:
            shift = -1
        elif p.emotion in TOLERANT:
            shift = 1
        return max(1, REPEAT_TOLERANCE[p.impatience] + shift)

    # -- helpers for subclasses ----------------------------------------------------------

    def pick(self, options: Sequence[str]) -> str:
        return options[self.rng.randrange(len(options))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def asked(self, kind: str) -> bool:
        """Record that the agent asked for `kind`; True when that exhausts the customer's
        tolerance for repeated questions (the subclass then abandons)."""
        self.questions[kind] += 1
        return self.questions[kind] > self.repeat_tolerance()

    def abandon(self) -> tuple[str, Signal]:
        return ABANDON[3], Signal.ABANDON

    def skeptical_now(self, kind: str) -> bool:
        """A skeptical customer asks why before giving personal data (once per kind)."""
        if self.questions[f"why:{kind}"]:
            return False
        p = {Level.LOW: 0.0, Level.MEDIUM: 0.5, Level.HIGH: 1.0}[self.persona.skepticism]
        if self.chance(p):
            self.questions[f"why:{kind}"] += 1
            return True
        return False

    def wants_reassurance(self) -> bool:
        if self.persona.emotion is not Emotion.ANXIETY or self.reassurances >= 2:
            return False
        return self.chance(INTENSITY_P[self.persona.emotion_intensity] * 0.5)

    def confused(self) -> bool:
        """Whether this customer makes a mistake in the information it gives (then corrects)."""
        level = max(self.persona.confusion, self.persona.incoherence, key=lambda lv: lv.rank)
        return self.chance({Level.LOW: 0.0, Level.MEDIUM: 0.5, Level.HIGH: 0.9}[level])

    def style(self, text: str) -> str:
        p = self.persona
        if p.emotion is not Emotion.NONE and self.chance(INTENSITY_P[p.emotion_intensity]):
            text = f"{self.pick(EMOTION_OPENERS[p.emotion])} {text}"
        if p.urgency is Level.HIGH and self.chance(0.3):
            text = f"{text} I need this done quickly."
        if p.politeness is Level.HIGH and self.chance(0.3):
            text = f"{text} Thank you!"
        if p.incoherence is not Level.LOW:
            text = self._typos(text, 0.08 if p.incoherence is Level.HIGH else 0.03)
        return text

    def _typos(self, text: str, rate: float) -> str:
        words = text.split(" ")
        out = []
        for w in words:
            # Only plain lower-case words: ids, amounts, names and emails stay intact.
            if len(w) > 3 and w.isalpha() and w.islower() and self.chance(rate):
                i = self.rng.randrange(len(w) - 1)
                w = w[:i] + w[i + 1] + w[i] + w[i + 2 :]
            out.append(w)
        return " ".join(out)

    def first_moves(self, low: str, transfer_text: str) -> tuple[str, Signal] | None:
        """What every customer does the same way, whatever the domain, before answering the
        request-specific part of the agent's text (`low`, lower-cased): correct a mistake the
        agent echoed, thank a transfer to a human, and answer (or question, or walk away
        from) a request to verify its identity. None when none of these applies."""
        for wrong, right in list(self.mistakes.items()):
            if wrong.lower() in low:
                del self.mistakes[wrong]
                self.fixed.add(right)
                return f"Sorry, my mistake: it's {right}, not {wrong}.", Signal.NONE
        if transfer_text.lower() in low:
            self.finished = True
            return "Okay, thank you.", Signal.STOP
        if "verify your identity" in low:
            if self.skeptical_now("identity"):
                return self.pick(
                    ["Why do you need my personal details?", "Why do you need that?"]
                ), Signal.NONE
            if self.asked("identity"):
                return self.abandon()
            text = self._identity()
            if (
                self.persona.incoherence is Level.HIGH
                and self._open()
                and self._focus() not in self.stated
            ):
                text = f"{self._state(self._focus())} oh and {text}"
            return text, Signal.NONE
        return None

    # -- what each domain implements ---------------------------------------------------------

    @abstractmethod
    def _identity(self) -> str:
        """The identifying details the agent asked for, as this customer gives them."""

    @abstractmethod
    def _open(self) -> list[int]:
        """Indexes of the requests not yet settled."""

    @abstractmethod
    def _focus(self) -> int:
        """The request the customer is talking about now."""

    @abstractmethod
    def _state(self, i: int) -> str:
        """Request `i` put into words (and recorded in `stated`)."""

    @abstractmethod
    def opening(self) -> str:
        """The customer's first message."""

    @abstractmethod
    def reply(self, agent_text: str) -> tuple[str, Signal]:
        """The customer's answer to the agent's text, and whether they stop or abandon."""


def _checkable(kind: str) -> bool:
    """Entities a read-back must restate: identifiers and amounts."""
    return kind == "money" or kind.endswith("_id")


def _restates(reading: Reading, ids: frozenset[str], actions: frozenset[str]) -> bool:
    """Whether an answer restates a change: every id and amount the "done" named, and its
    action; with nothing named, at least some action done or some id or amount."""
    said = {e.value for e in reading.entities if _checkable(e.kind)}
    done = {a.action for a in reading.acts if a.action}
    if not ids and not actions:
        return bool(said or (done and reading.has(ActKind.DONE)))
    return ids <= said and actions <= done


def _gives_reason(reading: Reading) -> bool:
    """Whether a message says why: a refusal's reason, an explanation, or a causal word."""
    if any(a.reason for a in reading.acts) or reading.has(ActKind.EXPLAIN):
        return True
    return bool(CAUSE.search(reading.text))
