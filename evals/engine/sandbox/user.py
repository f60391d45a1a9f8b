"""Base of scripted user simulators: how a persona shapes what the customer says.

The domain subclass decides *what* to say from its scenario and the agent's text
(`reply(agent_text) -> (text, signal)`); this base adds *how*: patience (an impatient customer
abandons after too many agent turns or a repeated question), skepticism (asks why before giving
personal data), emotions, politeness, anxiety (asks for reassurance), incoherence (typos), and
seed-dependent phrasing, so trials of one task differ.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from typing import Any

from evals.engine.messages import Message, Role, Signal
from evals.engine.persona import Emotion, Language, Level, Persona
from evals.engine.sandbox.phrases import BASE, Phrasebook, join

PATIENCE = {Level.LOW: 16, Level.MEDIUM: 9, Level.HIGH: 6}
REPEAT_TOLERANCE = {Level.LOW: 3, Level.MEDIUM: 2, Level.HIGH: 1}
INTENSITY_P = {Level.LOW: 0.15, Level.MEDIUM: 0.4, Level.HIGH: 0.75}
_ZH_PUNCTUATION = {"，": ",", "。": ".", "？": "?", "：": ":"}
_ZH_PARTICLES = frozenset("的了吧呢啊")


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


class ScriptedUserBase(ABC):
    # Its mistakes (a wrong digit, a swapped id) are persona behaviour it corrects when the
    # agent echoes them, not invented facts: the orchestrator does not re-check it.
    fidelity_checked = True
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

    # -- protocol ------------------------------------------------------------------------

    def respond(self, messages: Sequence[Message]) -> Message:
        agent_text = next((m.content for m in reversed(messages) if m.role is Role.ASSISTANT), "")
        first = not any(m.role is Role.USER for m in messages)
        if first:
            return Message.user(self.style(self.opening()))
        self.agent_turns += 1
        text, signal = self.reply(agent_text)
        if signal is Signal.NONE and self.agent_turns > PATIENCE[self.persona.impatience]:
            return Message.user(self.say("walk_away"), Signal.ABANDON)
        if signal is Signal.NONE and self.wants_reassurance():
            self.reassurances += 1
            return Message.user(self.style(self.say("reassurance")))
        return Message.user(self.style(text) if signal is Signal.NONE else text, signal)

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
        return self.questions[kind] > REPEAT_TOLERANCE[self.persona.impatience]

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
                self._slips(text, rate)
                if self.language is Language.ZH_HANS
                else (self._typos(text, rate))
            )
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

    def _slips(self, text: str, rate: float) -> str:
        """An incoherent Chinese customer's slips, at the end of a run of Chinese characters
        (before punctuation, a space or Latin text): the last character typed twice, a final
        particle left out, a full-width comma or full stop typed as an ASCII one. Ids,
        amounts, names and emails (no Chinese in them) stay intact, and every word inside a
        run stays whole, as a reader of Chinese would still read it."""
        out = []
        for i, ch in enumerate(text):
            last = i + 1 == len(text) or not _is_cjk(text[i + 1])
            if ch in _ZH_PUNCTUATION and self.chance(rate * 3):
                ch = _ZH_PUNCTUATION[ch]
            elif last and ch in _ZH_PARTICLES and self.chance(rate * 3):
                ch = ""
            elif last and _is_cjk(ch) and self.chance(rate * 3):
                ch = ch * 2
            out.append(ch)
        return "".join(out)

    def first_moves(self, low: str, transfer_text: str) -> tuple[str, Signal] | None:
        """What every customer does the same way, whatever the domain, before answering the
        request-specific part of the agent's text (`low`, lower-cased): correct a mistake the
        agent echoed, thank a transfer to a human, and answer (or question, or walk away
        from) a request to verify its identity. None when none of these applies."""
        for wrong, right in list(self.mistakes.items()):
            if wrong.lower() in low:
                del self.mistakes[wrong]
                self.fixed.add(right)
                return self.say("my_mistake", right=right, wrong=wrong), Signal.NONE
        if transfer_text.lower() in low:
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        if "verify your identity" in low:
            if self.skeptical_now("identity"):
                return self.say("why_identity"), Signal.NONE
            if self.asked("identity"):
                return self.abandon()
            return self.with_focus_blurted(self._identity()), Signal.NONE
        return None

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


class RequestListUser(ScriptedUserBase):
    """A customer whose scenario lists its requests (`data["requests"]`, stated in order when
    `data["ordered"]`) and its identity (`data["identity"]`): which requests are open, which
    it is on, and how it opens the conversation."""

    def __init__(self, *, scenario: Any, persona: Persona, seed: int) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.requests: list[dict[str, Any]] = [dict(r) for r in self.data["requests"]]
        self.done: set[int] = set()
        self.identity = self.data["identity"]
        self.confirmed: int | None = None

    def _open(self) -> list[int]:
        return [i for i in range(len(self.requests)) if i not in self.done]

    def _focus(self) -> int:
        stated_open = [i for i in self._open() if i in self.stated]
        return stated_open[0] if stated_open else (self._open() or [0])[0]

    def plain_yes(self) -> str:
        """A plain yes; one in five of an English customer's in Chinese."""
        if self.language is Language.EN and self.chance(0.2):
            return self.pick(self.PHRASES[Language.ZH_HANS]["affirm"])
        return self.say("affirm")

    def opening(self) -> str:
        if self.persona.incoherence is Level.HIGH and self.chance(0.7):
            return self.say("vague_opening")
        if self.data.get("ordered") or (len(self.requests) > 1 and self.chance(0.5)):
            parts = [self._state(i) for i in range(len(self.requests))]
            text = self.say("then" if self.data.get("ordered") else "also").join(parts)
        else:
            text = self._state(0)
        if self.persona.skepticism is Level.LOW and self.chance(0.3):
            text = self.join(self._identity(), text)
        return text
