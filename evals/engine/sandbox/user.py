"""Base of scripted user simulators: how a persona shapes what the customer says and when an
agent loses it.

The domain subclass decides *what* to say from its scenario and the agent's text
(`reply(agent_text) -> (text, signal)`); this base adds *how*, and every persona dimension acts
through a mechanism that can make an agent fail (docs/golive.md, "Persona mechanisms", has the
table and its numbers):

- patience: impatience sets the turn budget and the tolerance of a repeated question;
  urgency cuts the budget (`turn_budget`, `repeat_tolerance`);
- skepticism: asks why before giving personal data (`skeptical_now`), and "Why not?" after a
  refusal that gives no reason; leaves if the answer still gives none;
- trust: told that something was done, a low-trust customer asks to hear exactly what
  changed, and accepts an answer that restates the ids and amounts of the change it approved;
  it asks once more, then leaves;
- anxiety: asks for reassurance, and needs an answer (an explanation, the proposal again, a
  statement of what was done); it asks once more, then leaves;
- emotion family and politeness: an angry or frustrated, impolite customer tolerates one
  repeated question less and pushes back once on a refusal, leaving if the agent brushes the
  push-back off; a sad or anxious one tolerates one more;
- confusion and incoherence: wrong details, corrected when the agent echoes them
  (`confused`); typos; an incoherent customer blurts out its request.

The moves (read-back, why-not, push-back, reassurance) are decided here from the agent's
message as the reader (`self.reader`, an `UtteranceReader`; a domain sets its own, with its
entities) sees it: acts and entities, never an agent's exact phrases. The domain's `reply` is
computed first, as always, and held while the customer waits for the agent's answer to its
move; once the answer satisfies it, the held reply is said, so `reply` is called once per
agent message whatever the persona. A persona without a trait draws no random number for its
move, so the customers without it say exactly what they said before the move existed.

What the moves rest on (patience, their chances, what answers each) is in `sandbox.moves`; an
incoherent customer's typos and slips are in `sandbox.slips`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

from evals.engine.messages import Message, Role, Signal
from evals.engine.persona import Emotion, Language, Level, Persona
from evals.engine.sandbox import moves
from evals.engine.sandbox.phrases import BASE, Phrasebook, join
from evals.engine.sandbox.slips import slips, typos
from evals.engine.understanding.answers import Answer, read_answer
from evals.engine.understanding.utterances import ActKind, Reading, UtteranceReader

INTENSITY_P = {Level.LOW: 0.15, Level.MEDIUM: 0.4, Level.HIGH: 0.75}


_READER = UtteranceReader()


class ScriptedUserBase(ABC):
    # Its mistakes (a wrong digit, a swapped id) are persona behaviour it corrects when the
    # agent echoes them, not invented facts: the orchestrator does not re-check it.
    fidelity_checked = True
    # How the customer reads the agent's messages for its moves; a domain sets its own reader,
    # which knows its entities and verbs.
    reader: UtteranceReader = _READER
    # What it says, per language (evals.engine.sandbox.phrases); a domain adds its own keys.
    PHRASES: Phrasebook = BASE

    def __init__(self, *, scenario: Any, persona: Persona, seed: int) -> None:
        self.scenario = scenario
        self.data = scenario.data
        self.persona = persona
        self.language = persona.language
        self.rng = random.Random(seed)
        self.agent_turns = 0
        self.questions: Counter[str] = Counter()
        self.reassurances = 0
        self.finished = False
        self.stated: set[int] = set()  # requests the customer has put into words
        self.mistakes: dict[str, str] = {}  # wrong value said -> right value
        self.fixed: set[str] = set()  # values already corrected once (no second mistake)
        self.waiting: moves.Waiting | None = None
        self.moves: Counter[str] = Counter()  # moves made: read_back, why_not, push_back, worry
        self.proposal: frozenset[str] = frozenset()  # what the last go-ahead question named
        self.verified: set[frozenset[str]] = set()  # proposals already read back
        self._held_finished = False
        self.answers = 0  # agent turns spent answering the customer's moves

    @classmethod
    def factory(
        cls, *, domain: Any, scenario: Any, persona: Persona, params: Mapping[str, Any], seed: int
    ) -> Self:
        """The registry's maker: a customer for `scenario` (params: none by default)."""
        return cls(scenario=scenario, persona=persona, seed=seed)

    # -- protocol ------------------------------------------------------------------------

    def respond(self, messages: Sequence[Message]) -> Message:
        agent_text = next((m.content for m in reversed(messages) if m.role is Role.ASSISTANT), "")
        first = not any(m.role is Role.USER for m in messages)
        if first:
            return Message.user(self.style(self.opening()))
        self.agent_turns += 1
        reading = self.reader.read(agent_text)
        if self.waiting is not None:
            self.answers += 1
            waiting, self.waiting = self.waiting, None
            verdict = self._answered(waiting, reading)
            if verdict is not None:
                return verdict
            if waiting.held is not None and not (
                waiting.move == "push_back" and reading.has(ActKind.CONFIRM)
            ):
                return self._say(*waiting.held)
            # The domain asked the question itself, or the agent gave in to a push-back with
            # a new proposal: the domain answers this message.
        said = self._last_said(messages)
        if reading.has(ActKind.CONFIRM):
            self.proposal = moves.proposed(reading)
        whys = self._whys()
        self.hold()  # what the customer had settled before this message, for a push-back
        held = self.reply(agent_text)
        text, signal = held
        if signal is Signal.NONE and self.agent_turns - self.answers > self.turn_budget():
            return Message.user(self.say("walk_away"), Signal.ABANDON)
        if signal is not Signal.ABANDON:
            move = self._move(reading, said, held, domain_asked_why=self._whys() > whys)
            if move is not None:
                return move
        if signal is Signal.NONE and self.wants_reassurance():
            self.reassurances += 1
            self.moves["worry"] += 1
            self.waiting = moves.Waiting("worry", held)
            return Message.user(self.style(self.say("reassurance")))
        return self._say(text, signal)

    def _say(self, text: str, signal: Signal) -> Message:
        return Message.user(self.style(text) if signal is Signal.NONE else text, signal)

    # -- the persona's own moves ----------------------------------------------------------

    def move_text(self, key: str) -> str:
        """A move in the persona's language (one sentence per language: no random draw)."""
        return self.say(f"move:{key}")

    @staticmethod
    def _last_said(messages: Sequence[Message]) -> str:
        return next((m.content for m in reversed(messages) if m.role is Role.USER), "")

    def _whys(self) -> int:
        """Why-questions the customer has asked so far (the domains count theirs as `why:`)."""
        return sum(n for k, n in self.questions.items() if k.startswith("why:"))

    def _move(
        self, reading: Reading, said: str, held: tuple[str, Signal], *, domain_asked_why: bool
    ) -> Message | None:
        """Ask for a read-back after "done", "Why not?" after a refusal without a reason, or
        push back on a refusal; None when the persona lets the message through. `said` is the
        customer's previous message (an agent accepting its "no" refuses nothing it wants);
        `domain_asked_why` when the domain's own reply (`held`) already asks why."""
        asks = {ActKind.CONFIRM, ActKind.VERIFY, ActKind.ASK, ActKind.CHOICE, ActKind.CHECK}
        if asks & set(reading.kinds):
            return None  # a question is on the table: answer it first
        done = reading.of(ActKind.DONE)
        if done and not reading.has(ActKind.REFUSE):
            expected = moves.checkable(e for a in done for e in a.entities) or self.proposal
            if expected not in self.verified and self._sometimes(
                moves.READ_BACK_P[self.persona.trust]
            ):
                self.verified.add(expected)
                self.moves["read_back"] += 1
                self.waiting = moves.Waiting("read_back", held, expected)
                return Message.user(self.move_text("read_back"))
            return None
        refusals = reading.of(ActKind.REFUSE)
        if not refusals or read_answer(said).answer is Answer.NO:
            return None
        if not moves.gives_reason(reading) and not self.moves["why_not"]:
            if domain_asked_why:
                # The domain's own reply already asks why: a skeptic waits for the reason.
                if self.persona.skepticism is not Level.LOW:
                    self.moves["why_not"] += 1
                    self.waiting = moves.Waiting("why_not", None)
                return None
            if self._sometimes(moves.WHY_NOT_P[self.persona.skepticism]):
                self.moves["why_not"] += 1
                self.waiting = moves.Waiting("why_not", held)
                return Message.user(self.move_text("why_not"))
        if not self.moves["push_back"] and self.pushes_back():
            self.moves["push_back"] += 1
            self.waiting = moves.Waiting("push_back", held)
            return Message.user(self.move_text("push_back"))
        return None

    def _sometimes(self, p: float) -> bool:
        """`chance(p)`, drawing from the seeded stream only when the outcome is in doubt."""
        return p >= 1 or (p > 0 and self.chance(p))

    def _answered(self, waiting: moves.Waiting, reading: Reading) -> Message | None:
        """The customer's verdict on the agent's answer to its move: None when it accepts,
        else its next message (ask again, or leave)."""
        if waiting.move == "read_back":
            if moves.restates(reading, waiting.expected):
                return None
            return self._again(waiting, "read_back_again", "unverified")
        if waiting.move == "why_not":
            if moves.gives_reason(reading):
                return None
            return Message.user(self.move_text("no_reason"), Signal.ABANDON)
        if waiting.move == "push_back":
            if moves.HEARD & set(reading.kinds):
                if reading.has(ActKind.CONFIRM):
                    self.restore()  # it gave in: the refused request is open again
                return None
            return Message.user(self.move_text("brushed_off"), Signal.ABANDON)
        if moves.REASSURING & set(reading.kinds) or moves.gives_reason(reading):
            return None
        return self._again(waiting, "worry_again", "worried_off")

    def _again(self, waiting: moves.Waiting, again: str, leave: str) -> Message:
        if waiting.asks < 2:
            waiting.asks += 1
            self.waiting = waiting
            return Message.user(self.move_text(again))
        return Message.user(self.move_text(leave), Signal.ABANDON)

    def hold(self) -> None:
        """Remember what was settled before the agent's message, in case it refuses and then
        gives in to a push-back (a subclass adds its own notes)."""
        self._held_finished = self.finished

    def restore(self) -> None:
        """Undo what the refusal settled: the agent gave in and proposes it after all."""
        self.finished = self._held_finished

    def pushes_back(self) -> bool:
        return moves.pushes_back(self.persona)

    def turn_budget(self) -> int:
        return moves.turn_budget(self.persona)

    def repeat_tolerance(self) -> int:
        return moves.repeat_tolerance(self.persona)

    # -- helpers for subclasses ----------------------------------------------------------

    def pick(self, options: Sequence[str]) -> str:
        return options[self.rng.randrange(len(options))]

    def say(self, key: str, **values: Any) -> str:
        """Phrase `key` in the customer's language, filled in with `values`: one of its
        alternatives picked at random, or its one sentence (which draws no random number)."""
        phrase = self.PHRASES[self.language][key]
        text = phrase if isinstance(phrase, str) else self.pick(phrase)
        return text.format(**values) if values else text

    def options(self, key: str) -> tuple[str, ...]:
        """The alternatives of phrase `key` in the customer's language, unfilled."""
        phrase = self.PHRASES[self.language][key]
        return (phrase,) if isinstance(phrase, str) else phrase

    def join(self, *sentences: str) -> str:
        """Sentences one after the other, as the customer's language writes them."""
        return join(self.language, *sentences)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def asked(self, kind: str) -> bool:
        """Record that the agent asked for `kind`; True when that exhausts the customer's
        tolerance for repeated questions (the subclass then abandons)."""
        self.questions[kind] += 1
        return self.questions[kind] > self.repeat_tolerance()

    def abandon(self) -> tuple[str, Signal]:
        return self.say("fed_up"), Signal.ABANDON

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
            text = self.join(self.say(f"emotion:{p.emotion}"), text)
        if p.urgency is Level.HIGH and self.chance(0.3):
            text = self.join(text, self.say("urgent"))
        if p.politeness is Level.HIGH and self.chance(0.3):
            text = self.join(text, self.say("polite_thanks"))
        if p.incoherence is not Level.LOW:
            rate = 0.08 if p.incoherence is Level.HIGH else 0.03
            text = (
                slips(text, rate, self.rng)
                if self.language is Language.ZH_HANS
                else (typos(text, rate, self.rng))
            )
        return text

    def first_moves(self, low: str, transfer_text: str) -> tuple[str, Signal] | None:
        """What every customer does the same way, whatever the domain, before answering the
        request-specific part of the agent's text (`low`, lower-cased): correct a mistake the
        agent echoed, thank a transfer to a human, and answer (or question, or walk away
        from) a request to verify its identity. None when none of these applies."""
        correction = self.correct_mistake(lambda wrong: wrong.lower() in low)
        if correction is not None:
            return correction
        if transfer_text.lower() in low:
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        if "verify your identity" in low:
            return self.verify_identity()
        return None

    def as_given(self, right: str, *, wrong: str = "", slip: Callable[[str], str]) -> str:
        """`right` as the customer gives it: its first detail given wrong is the scenario's
        `wrong` value, or a confused customer's `slip` of it (remembered, to be corrected
        when the agent echoes it); once corrected, or with another mistake open, `right`."""
        if right not in self.fixed and not self.mistakes:
            if not wrong and self.confused():
                wrong = slip(right)
            if wrong and wrong != right:
                self.mistakes[wrong] = right
                return wrong
        return right

    def correct_mistake(self, echoed: Callable[[str], bool]) -> tuple[str, Signal] | None:
        """Correct the first mistake the agent `echoed` (a wrong value the customer gave),
        once; None when it echoed none."""
        for wrong, right in list(self.mistakes.items()):
            if echoed(wrong):
                del self.mistakes[wrong]
                self.fixed.add(right)
                return self.say("my_mistake", right=right, wrong=wrong), Signal.NONE
        return None

    def verify_identity(self, slots: tuple[str, ...] = ()) -> tuple[str, Signal]:
        """Answer a request to verify its identity (asking for `slots`, or any): a skeptic
        asks why first, a customer asked too often walks away, else its details."""
        if self.skeptical_now("identity"):
            return self.say("why_identity"), Signal.NONE
        if self.asked("identity"):
            return self.abandon()
        return self.with_focus_blurted(self._identity(slots)), Signal.NONE

    def with_focus_blurted(self, text: str) -> str:
        """An incoherent customer blurts out the request it is on before what it was asked."""
        if (
            self.persona.incoherence is Level.HIGH
            and self._open()
            and self._focus() not in self.stated
        ):
            return self.say("blurt", request=self._state(self._focus()), text=text)
        return text

    # -- what each domain implements ---------------------------------------------------------

    @abstractmethod
    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        """The identifying details the agent asked for (`slots`, or any), as this customer
        gives them."""

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
