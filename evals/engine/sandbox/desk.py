"""What the domains' reference agents share beyond `ReferenceAgentBase`: how they word what they
say, and how they keep the customer's requests.

- `WordedAgent` speaks every sentence from one of the domain's wordings (`PHRASINGS`: a table
  of `str.format` templates per wording name, "en" and "zh" at least), chosen by the agent param
  `phrasing` or, without one, by the customer's language; it says what it has noted (a write's
  outcome, a lookup that found nothing) before its next message, and asks the go-ahead with the
  wording's `proceed` and `reassure` sentences.
- `DeskAgent` adds the requests: each sentence the customer says is filed under the request it
  names, else the one being handled or talked about, else kept until a request is named; the
  requests are handled one at a time, in the order they were named (reversed by the
  wrong-order fault), each closed by a write, a refusal or a decline.

How sentences are put one after the other differs by domain and is kept as each domain's
transcripts were measured: English always with a space; Chinese as Chinese is written, without
one (`ZH_GAP`), or with one (billing, membership, retail); notes before a message may be joined
otherwise than the sentences of one answer (`ZH_NOTES_GAP`; clinic_admin joins its notes
tightly and its answers with a space).
"""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from evals.engine.errors import EngineError
from evals.engine.messages import Message
from evals.engine.persona import Language
from evals.engine.sandbox.agent import ReferenceAgentBase


def tool_data(content: str, error: bool) -> Any:
    """A tool result as the agent reads it: None for an error, the parsed JSON for an object
    or a list, else the text."""
    if error:
        return None
    return json.loads(content) if content.startswith(("{", "[")) else content


# A customer asking why (the agent then explains why it needs what it asks for).
_WHY = re.compile(r"why|为什么", re.IGNORECASE)


class WordedAgent(ReferenceAgentBase):
    """A reference agent whose every sentence is one of its domain's wordings. Subclasses set
    `DOMAIN` (named in the error for an unknown phrasing) and `PHRASINGS`; `ENGLISH` is the
    wording an English customer hears when no phrasing is set."""

    DOMAIN: ClassVar[str]
    PHRASINGS: ClassVar[Mapping[str, Mapping[str, str]]]
    ENGLISH: ClassVar[str] = "en"
    ZH_GAP: ClassVar[str] = ""
    ZH_NOTES_GAP: ClassVar[str] = ""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        # An explicit phrasing is spoken whatever the customer writes; without one the agent
        # answers in the customer's language (read from its messages by the base).
        self.phrasing: str | None = params.get("phrasing")
        if self.phrasing is not None and self.phrasing not in self.PHRASINGS:
            raise EngineError(
                f"Unknown {self.DOMAIN} phrasing {self.phrasing!r}; "
                f"known: {', '.join(sorted(self.PHRASINGS))}"
            )
        self.notes: list[str] = []  # what to tell the customer before the next message

    @property
    def zh(self) -> bool:
        """Whether the agent speaks Chinese now."""
        if self.phrasing is not None:
            return self.phrasing.startswith("zh")
        return self.language is Language.ZH_HANS

    @property
    def words(self) -> Mapping[str, str]:
        if self.phrasing is not None:
            return self.PHRASINGS[self.phrasing]
        return self.PHRASINGS["zh" if self.language is Language.ZH_HANS else self.ENGLISH]

    def t(self, key: str, **values: Any) -> str:
        """Sentence `key` in this agent's wording, filled in with `values`."""
        return self.words[key].format(**values)

    def join(self, parts: Iterable[str], *, notes: bool = False) -> str:
        """The non-empty `parts`, one after the other as this agent writes sentences (`notes`:
        as it puts its notes before a message)."""
        gap = (self.ZH_NOTES_GAP if notes else self.ZH_GAP) if self.zh else " "
        return gap.join(p for p in parts if p)

    def say(self, text: str) -> Message:
        if self.notes:
            text = self.join([*self.notes, text], notes=True)
            self.notes = []
        return super().say(text)

    def proceed_text(self, summary: str) -> str:
        return self.t("proceed", summary=summary)

    def reassure_text(self, summary: str) -> str:
        return self.t("reassure", summary=summary)


@dataclass
class Request:
    """A request the customer made: its intent, everything it said about it, whether it is
    closed, and which facts the agent asked for (a domain's request adds its own facts)."""

    intent: str
    text: str = ""
    done: bool = False
    asked: set[str] = field(default_factory=set)


R = TypeVar("R", bound=Request)


class DeskAgent(WordedAgent, Generic[R]):
    """A worded agent that keeps the customer's requests (`reqs`, the one it handles now
    `active`, the one the customer talks about `focus`, and the facts said before any request
    was named `pool`). Subclasses make a request (`new_request`) and read a sentence into one
    (`_absorb`); they may narrow which open request a sentence about an intent belongs to
    (`same_request`)."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.reqs: list[R] = []
        self.focus: R | None = None
        self.active: R | None = None
        self.pool = ""  # facts given before any request was named
        self.explain = False  # the customer asked why: explain before asking again
        self.failed = ""  # why the last identity lookup found nothing, for the next message

    @abstractmethod
    def new_request(self, intent: str) -> R:
        """A new request with `intent`."""

    @abstractmethod
    def _absorb(self, r: R, sentence: str) -> None:
        """Read the facts in `sentence` into request `r`."""

    def same_request(self, r: R, sentence: str) -> bool:
        """Whether `sentence`, which names `r`'s intent, is about open request `r` (and not
        another one of the same kind); hook."""
        return True

    # -- reading the customer ------------------------------------------------------------

    def heard_why(self, text: str) -> None:
        """Note a customer asking why: the next identity question explains itself."""
        if _WHY.search(text):
            self.explain = True

    def take(self, sentence: str, intent: str) -> None:
        """File `sentence` under the request it names (`intent`), else the one being handled
        or talked about, else keep it for the next request named."""
        req = self._request(intent, sentence) if intent else (self.active or self.focus)
        if req is None:
            self.pool += " " + sentence
            return
        self._absorb(req, sentence)

    def _request(self, intent: str, sentence: str) -> R | None:
        """The open request with `intent` that `sentence` is about, or a new one (holding the
        facts said before it was named); it is now the one the customer talks about."""
        for r in self.reqs:
            if r.intent == intent and not r.done and self.same_request(r, sentence):
                self.focus = r
                return r
        r = self.new_request(intent)
        if self.pool:
            self._absorb(r, self.pool)
            self.pool = ""
        self.reqs.append(r)
        self.focus = r
        return r

    def declined(self, name: str, args: dict[str, Any]) -> None:
        if self.active is not None and not self.has_new_facts(self.last_user):
            self.active.done = True
            self.notes.append(self.t("declined"))

    # -- deciding ------------------------------------------------------------------------

    def serve(self, requests: list[R]) -> Message:
        """Handle the first of the open `requests` (in the order they are served), or, with
        none left, ask what else the customer needs."""
        ordered = self.order_requests(requests)
        self.active = None
        if not ordered:
            return self.say(self.t("anything_else" if self.reqs else "how_can_i_help"))
        self.active = ordered[0]
        return self.handle(ordered[0])

    def handle(self, r: R) -> Message:
        """The next step for request `r`: the domain's `_<intent>` method."""
        handler = getattr(self, f"_{r.intent}")
        message: Message = handler(r)
        return message

    def ask_identity(self) -> Message:
        """Ask the customer to verify its identity: after why the last lookup failed, and
        with the reason when it asked why."""
        parts = [self.failed]
        self.failed = ""
        if self.explain:
            self.explain = False
            parts.append(self.t("explain_identity"))
        parts.append(self.t("ask_identity"))
        return self.say(self.join(parts))

    def _ask(self, r: R, what: str, text: str) -> Message:
        """Ask for the fact `what` of request `r`."""
        r.asked.add(what)
        return self.say(text)

    def close(self, r: R, key: str, **values: Any) -> Message:
        """Close `r` with sentence `key` (a refusal with the policy's reason, or nothing to
        do) and ask what else the customer needs."""
        r.done = True
        return self.say(self.join([self.t(key, **values), self.t("anything_else")]))

    def _refuse(self, r: R, key: str, **values: Any) -> Message:
        """The policy says no to `r`: say why with sentence `key` and close it (a policy-blind
        agent proposes the write here instead)."""
        return self.close(r, key, **values)
