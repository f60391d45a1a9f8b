"""A scripted customer whose scenario lists its requests, and what such customers do alike
whatever their domain: say yes to a proposal (hesitantly, hurriedly, or with the next request
bundled in), say no to one that is not what they want, take in a refusal, and go on with what
is still open or say goodbye."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from evals.engine.messages import Signal
from evals.engine.persona import Language, Level, Persona
from evals.engine.sandbox.user import ScriptedUserBase
from evals.engine.sandbox.vocab import REFUSAL_CUE
from evals.engine.understanding.utterances import Act, ActKind, Reading


def dob_slip(dob: str) -> str:
    """A confused customer's slip in its date of birth ("YYYY-MM-DD"): the day's two digits
    swapped when that is still a day of any month, else the year before."""
    year, month, day = dob.split("-")
    swapped = day[::-1]
    if swapped != day and 1 <= int(swapped) <= 28:
        return f"{year}-{month}-{swapped}"
    return f"{int(year) - 1}-{month}-{day}"


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
        self._held: tuple[set[int], int | None] = (set(), None)

    def _open(self) -> list[int]:
        return [i for i in range(len(self.requests)) if i not in self.done]

    def hold(self) -> None:
        super().hold()
        self._held = (set(self.done), self.confirmed)

    def restore(self) -> None:
        super().restore()
        self.done, self.confirmed = set(self._held[0]), self._held[1]

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

    # -- what such customers do alike ----------------------------------------------------

    # The words in which the customer hears a refusal its reader misses (a domain may set its
    # own).
    refusal_cue: re.Pattern[str] = REFUSAL_CUE
    # An incoherent customer sometimes hesitates before its yes (phrase `yes_wait`); a
    # domain whose customers never do sets False (and draws no random number for it).
    HESITATES: ClassVar[bool] = True

    def _affirm(self, i: int) -> str:
        """A yes to the proposal for request `i`, as this persona says it: hesitant, hurried,
        or with the next request bundled in — each a real way a confirmation gets harder to
        read."""
        text = self.plain_yes()
        p = self.persona
        if self.HESITATES and p.incoherence is Level.HIGH and self.chance(0.35):
            return self.say("yes_wait")
        if p.urgency is Level.HIGH and self.chance(0.3):
            return self.say("yes_hurry")
        unstated = [j for j in self._open() if j != i and j not in self.stated]
        if p.impatience is Level.HIGH and unstated and self.chance(0.5):
            return self.say("yes_also", yes=text, request=self._state(unstated[0]))
        return text

    def _decline(self, about: int | None = None) -> str:
        """A no to a proposal that is not what the customer wants, saying what it wants:
        request `about` with other values, or (None) nothing it asked for."""
        if about is None:
            return self.say("not_asked", request=self._state(self._focus()))
        return self.say("not_right", request=self._state(about))

    def _unsure(self) -> tuple[str, Signal]:
        """The agent's message says nothing the customer can act on."""
        if self.asked("unclear"):
            return self.abandon()
        return self.say("unsure"), Signal.NONE

    def _next(self, reading: Reading) -> tuple[str, Signal]:
        """Nothing asked of the customer: go on with what is still open, or say goodbye."""
        remaining = self._open()
        if not remaining:
            self.finished = True
            return self.say("goodbye"), Signal.STOP
        said = set(reading.kinds) - {ActKind.UNCLEAR}
        if not said:
            return self._unsure()
        nxt = next((i for i in remaining if i not in self.stated), remaining[0])
        if nxt in self.stated and said & {ActKind.CLOSING, ActKind.GREETING}:
            return self.say("not_finished", request=self._state(nxt)), Signal.NONE
        return self._state(nxt), Signal.NONE

    def refusal_heard(self, reading: Reading) -> bool:
        """Whether the agent refuses: a refusal the reader sees, or the refusal cue in a
        message that proposes nothing."""
        return reading.has(ActKind.REFUSE) or (
            not reading.has(ActKind.CONFIRM) and bool(self.refusal_cue.search(reading.text))
        )

    def take_done(
        self, reading: Reading, proposed: int | None, about: Callable[[Act], int | None]
    ) -> None:
        """Take in what the agent says it did: the request each DONE act is `about`, else the one
        the customer just said yes to, is settled. A DONE act about the request the agent is
        proposing now (`proposed`) is part of its summary, not a report."""
        for act in reading.of(ActKind.DONE):
            i = about(act)
            if i is not None and i == proposed:
                continue
            if i is None:
                i = self.confirmed  # what was done is what they just said yes to
            if i is not None:
                self.done.add(i)
                if i == self.confirmed:
                    self.confirmed = None

    def take_refusal(
        self,
        reading: Reading,
        about: Callable[[Act], int | None],
        *,
        first_only: bool = False,
    ) -> tuple[str, Signal] | None:
        """Take in a refusal (`refusal_heard`): with a yes pending and no reason given, the
        customer says its yes again rather than drop the request; without a reason, it asks
        why once; otherwise the requests refused (`about` each refusal; `first_only`: the
        first of them), or the one in focus, are settled. None when there is nothing to
        say."""
        if not self.refusal_heard(reading):
            return None
        refusals = reading.of(ActKind.REFUSE)
        reason = any(a.reason for a in refusals)
        if self.confirmed is not None and not reason:
            i, self.confirmed = self.confirmed, None
            return self.say("said_yes", request=self._state(i)), Signal.NONE
        if not self._open():
            return None
        refused = [i for i in (about(a) for a in refusals) if i is not None]
        first = refused[0] if refused else self._focus()
        if refusals and not reason and not self.questions[f"why:{first}"]:
            self.questions[f"why:{first}"] += 1
            return self.say("why_not"), Signal.NONE
        self.done.update((refused[:1] if first_only else refused) or [first])
        return None
