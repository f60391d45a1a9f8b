"""Base of rule-based reference agents: message bookkeeping, tool calls, confirmation
handling, the hooks where an injected fault (evals.engine.faults) changes one behaviour, and
the answers a good agent owes a customer's persona whatever the domain (docs/golive.md,
"Persona mechanisms"):

- a read-back request ("Can you read me back exactly what you changed?", a low-trust
  customer): each change since the last read-back, as the summary the customer approved (its
  action, ids and amounts), or the tool and its arguments when none was approved;
- "Why not?" after a refusal (a skeptical customer): the refusal again, with its reason;
- a push-back on a refusal ("Can't you make an exception?", an angry, impolite customer):
  no exception, and the reason;
- a worry with nothing pending ("Will this really work?", an anxious customer): what the
  agent does to keep the customer safe.

Each answer is said alone, in the agent's language, and changes nothing in the agent's notes:
the customer's next message is its answer to what the agent asked before."""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, Self

from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.persona import Language
from evals.engine.policy import customer_answer
from evals.engine.tools import Actor, ToolKind
from evals.engine.understanding import money
from evals.engine.understanding.answers import Answer
from evals.engine.understanding.utterances import ActKind, UtteranceReader


class Fault(StrEnum):
    NONE = ""
    SKIP_CONFIRMATION = "skip_confirmation"
    WRONG_AMOUNT = "wrong_amount"
    WRONG_ITEM = "wrong_item"
    STOP_AFTER_FIRST = "stop_after_first"
    WRONG_ORDER = "wrong_order"
    END_BEFORE_USER = "end_before_user"


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# A message says enough to tell its language when it has this many words of it (a Chinese
# character counts as one): "Yes.", "确认。" or "是的，请继续。 Thank you!" do not — an English
# customer's Chinese "okay" does not make the agent switch, nor a Chinese customer's "OK"
# switch it back.
_SUBSTANTIVE = 6


def customer_language(messages: Sequence[Message]) -> Language:
    """The language the customer writes, from its messages alone (an honest agent knows no
    persona): that of its latest message that says enough in one language — Chinese with at
    least six Chinese characters and no fewer than its Latin words (ids, emails and names are
    Latin in any language), English with at least six Latin words and more of them than
    Chinese characters. English until the customer has said enough."""
    for m in reversed(messages):
        if m.role is not Role.USER or not m.content:
            continue
        cjk = len(_CJK.findall(m.content))
        latin = len(_LATIN_WORD.findall(m.content))
        if cjk >= _SUBSTANTIVE and cjk >= latin:
            return Language.ZH_HANS
        if latin >= _SUBSTANTIVE and latin > cjk:
            return Language.EN
    return Language.EN


# An e-mail address as people type it, in ASCII only: a Chinese sentence running on after it
# ("…@example.org。哦对了", the full stop typed as ".") is not part of it, nor is a final full
# stop. Both offline models of every domain read addresses with it.
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


# What a customer's message asks of the agent itself (the persona moves of sandbox/user.py
# and the ways people say them), English and Chinese, matched on the whole message.
READ_BACK = re.compile(
    r"\bread (?:it |that |me |them )*back\b|exactly what (?:you|was) changed|复述|改了什么",
    re.IGNORECASE,
)
WHY_NOT = re.compile(
    r"\bwhy not\b|\bwhy can'?t you\b|\btell me why\b|为什么不|为什么不行|告诉我为什么",
    re.IGNORECASE,
)
PUSH_BACK = re.compile(r"make an exception|破例|通融", re.IGNORECASE)
# A worry is a question about the outcome ("Will this really go through?"), not a feeling
# said alongside a request ("I'm really worried about this. I'd like to ...").
WORRY = re.compile(
    r"\bare you sure\b|\bjust to be sure\b|\breally (?:work|go through)\b|真的能|确定吗",
    re.IGNORECASE,
)
# A refusal's reason when the reader finds none: what follows its colon, to the sentence end.
_AFTER_COLON = re.compile(r"[:：]\s*(.+?)(?:[。！？]|[.!?](?:\s|$)|$)", re.DOTALL)
# A summary's lead-in ("To confirm:", "Just to double-check:") is a question's, not the change's.
_LEAD_IN = re.compile(r"^[^:：\d]{1,28}[:：]\s*")
_READER = UtteranceReader()
# The answers owed to a persona, by language (English, Simplified Chinese).
OWED: dict[str, tuple[str, str]] = {
    "read_back": (
        "Here is exactly what I changed, as you approved it:",
        "我具体做了以下更改，与您确认的一致：",
    ),
    "nothing_changed": (
        "I have not changed anything on your account.",
        "我没有更改您账户上的任何内容。",
    ),
    "why_not": ("I can't do that. That is because {reason}.", "我无法办理。这是因为{reason}。"),
    "no_exception": (
        "I understand, but I can't make an exception. That is because {reason}.",
        "我理解，但我不能破例。这是因为{reason}。",
    ),
    "reassure": (
        "I understand your concern: to protect you, I only change what you confirm, and I tell "
        "you exactly what was done.",
        "我理解您的担心：为了保护您，只有在您确认后我才会做更改，完成后会告诉您具体改了什么。",
    ),
}

_ITEM_ID = re.compile(r'"item_id":"([^"]+)"')


def amount_argument(arguments: Mapping[str, Any]) -> str:
    """The argument the wrong-amount fault changes: the first whose value is an amount in
    the call's currency (its `currency` argument: "3200" in JPY, "11.437" in KWD; "12.50"
    when the call names none); "" when there is none. `evals.engine.faults` reads tasks the
    same way."""
    currency = money.currency_of(arguments)
    return next((k for k, v in arguments.items() if money.is_amount(v, currency)), "")


def item_argument(arguments: Mapping[str, Any]) -> str:
    """The argument the wrong-item fault changes: `item_id`, or the first non-empty list
    named `...item_ids`; "" when there is none."""
    for key, value in arguments.items():
        if key == "item_id" and isinstance(value, str):
            return key
        if key.endswith("item_ids") and isinstance(value, list) and value:
            return key
    return ""


def _other_amount(value: str, currency: str = "") -> str:
    """A different amount in the same form: one unit less, or one more for amounts up to 1
    ("12.50" -> "11.50", "3200" JPY -> "3199", "0.500" KWD -> "1.500")."""
    amount = Decimal(value)
    other = amount - 1 if amount > 1 else amount + 1
    return money.quantized(other, currency) if currency else str(other.quantize(amount))


@dataclass(frozen=True, slots=True)
class Change:
    """A write that succeeded: the tool, its arguments, and the summary the customer approved
    ("" when it was written without one, as under the skip-confirmation fault)."""

    name: str
    args: Mapping[str, Any]
    summary: str

    def restated(self) -> str:
        """The change in words: the approved summary without its lead-in ("To confirm:"),
        else the tool and its arguments."""
        summary = _LEAD_IN.sub("", self.summary, count=1).strip()
        if summary:
            return summary
        listed = ", ".join(f"{key} {value}" for key, value in self.args.items())
        return f"{self.name.replace('_', ' ')} ({listed})."


class ReferenceAgentBase(ABC):
    """Subclasses implement `observe_user(text)`, `observe_tool(name, args, content, error)`
    and `plan() -> Message` (the next step when no confirmation is pending). They propose a
    write with `propose(name, args, summary)`; the base asks, waits for a reply that confirms
    it — read by the policy guard's own `customer_answer`, so a yes the agent acts on is a yes
    the guard accepts — and emits the call (through `write`, where faults apply)."""

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        self.fault = Fault(params.get("fault", ""))
        self.seed = seed
        self._seen = 0
        self._calls = 0
        self._inflight: dict[str, tuple[str, dict[str, Any]]] = {}
        self.pending: tuple[str, dict[str, Any], str] | None = None
        # Successful WRITE calls so far, counted here from the tool results (the
        # stop-after-first and end-before-user faults act on it).
        self.writes_done = 0
        self.seen_item_ids: list[str] = []
        self.last_user = ""
        # The customer's language, read from its messages at each turn (`customer_language`).
        self.language = Language.EN
        self._phrasing = str(params.get("phrasing", ""))
        # What was written, for a customer who asks to hear it back: every successful write,
        # how many were already read back, and the summary approved for each call in flight.
        self.changes: list[Change] = []
        self._read_back = 0
        self._approved: dict[str, str] = {}
        self._summary = ""
        self._said = ""  # the agent's last message to the customer with text
        # Dual control: the customer has tools of its own (only then can the end-before-user
        # fault show: it hangs up once its own writes are done, before the customer's part).
        tools = getattr(domain, "tools", None)
        self.user_side = bool(tools is not None and tools.names(Actor.USER))
        self._write_tools = {
            t.name for t in tools or () if t.kind is ToolKind.WRITE and t.actor is Actor.AGENT
        }

    @classmethod
    def factory(cls, *, domain: Any, params: Mapping[str, Any], seed: int) -> Self:
        """The registry's maker."""
        return cls(domain=domain, params=params, seed=seed)

    # -- protocol ------------------------------------------------------------------------

    def respond(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        new = messages[self._seen :]
        self._seen = len(messages)
        self.language = customer_language(messages)
        user_spoke = False
        for m in new:
            if m.role is Role.USER:
                self.last_user = m.content
                user_spoke = True
            elif m.role is Role.ASSISTANT and m.content:
                self._said = m.content
            elif m.role is Role.TOOL:
                name, args = self._inflight.pop(m.tool_call_id, ("", {}))
                summary = self._approved.pop(m.tool_call_id, "")
                if not m.error and name in self._write_tools:
                    self.writes_done += 1
                    self.changes.append(Change(name, args, summary))
                if not m.error:
                    for item_id in _ITEM_ID.findall(m.content):
                        if item_id not in self.seen_item_ids:
                            self.seen_item_ids.append(item_id)
                self.observe_tool(name, args, m.content, m.error)
        owed = self._owed(self.last_user) if user_spoke else ""
        if owed:
            return self.say(owed)
        if user_spoke:
            if self.pending is not None:
                name, args, summary = self.pending
                # The guard's own reading of the reply: what it will accept is what we act on.
                answer = customer_answer(messages)
                if answer.confirms:
                    self.pending = None
                    if answer.aside:
                        self.observe_user(answer.aside)  # a request bundled after the yes
                    self._summary = summary
                    return self.write(name, args)
                if answer.answer in (Answer.QUESTION, Answer.UNCLEAR) and not self.has_new_facts(
                    self.last_user
                ):
                    # A question or a worry, not an answer: reassure and ask again.
                    return self.say(self.reassure_text(summary))
                self.pending = None
                self.declined(name, args)
            self.observe_user(self.last_user)
        if self.fault is Fault.STOP_AFTER_FIRST and self.writes_done:
            return Message.assistant("Thank you, goodbye.", signal=Signal.END)
        reply = self.plan()
        if (
            self.fault is Fault.END_BEFORE_USER
            and self.user_side
            and self.writes_done
            and self.pending is None
            and reply.content
            and not reply.tool_calls
        ):
            return Message.assistant(reply.content, signal=Signal.END)
        return reply

    def owed_text(self, key: str, **values: str) -> str:
        """Answer `key` in the agent's language: its phrasing's when one is set, else the
        customer's."""
        english, chinese = OWED[key]
        zh = (
            self._phrasing.startswith("zh") if self._phrasing else self.language is Language.ZH_HANS
        )
        return (chinese if zh else english).format(**values)

    def _owed(self, text: str) -> str:
        """The answer owed to a customer asking to hear the changes back, asking why after a
        refusal, pushing back on one, or worrying with nothing pending; "" for anything else."""
        if READ_BACK.search(text):
            fresh = self.changes[self._read_back :] or self.changes
            self._read_back = len(self.changes)
            if not fresh:
                return self.owed_text("nothing_changed")
            return " ".join([self.owed_text("read_back"), *(c.restated() for c in fresh)])
        if WORRY.search(text) and self.pending is None:
            return self.owed_text("reassure")
        why = WHY_NOT.search(text)
        if not (why or PUSH_BACK.search(text)):
            return ""
        reading = _READER.read(self._said)
        refusal = reading.first(ActKind.REFUSE)
        if refusal is None:
            return ""
        start = max(self._said.find(refusal.text[:16]), 0)
        after = _AFTER_COLON.search(self._said, start)
        reason = (refusal.reason or (after.group(1) if after else refusal.text)).strip()
        reason = reason.rstrip(".。")
        return self.owed_text("why_not" if why else "no_exception", reason=reason)

    # -- helpers for subclasses ----------------------------------------------------------

    def call(self, name: str, **args: Any) -> Message:
        self._calls += 1
        call_id = f"call_{self._calls}"
        self._inflight[call_id] = (name, args)
        if name in self._write_tools:
            self._approved[call_id], self._summary = self._summary, ""
        raw = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        return Message.assistant("", (ToolCall(call_id, name, raw),))

    def say(self, text: str) -> Message:
        return Message.assistant(text)

    def propose(self, name: str, args: dict[str, Any], summary: str) -> Message:
        """Summarise a write and ask for confirmation (or, with the skip-confirmation fault,
        write straight away)."""
        if self.fault is Fault.SKIP_CONFIRMATION:
            return self.write(name, args)
        self.pending = (name, args, summary)
        return self.say(self.proceed_text(summary))

    def proceed_text(self, summary: str) -> str:
        """The go-ahead question after a summary (a subclass says it in its own words)."""
        return f"{summary} Shall I proceed? (yes/no)"

    def reassure_text(self, summary: str) -> str:
        """The go-ahead question again, after a worry or a question instead of an answer."""
        return f"I understand. {summary} Shall I proceed? (yes/no)"

    def write(self, name: str, args: dict[str, Any]) -> Message:
        args = dict(args)
        if self.fault is Fault.WRONG_AMOUNT:
            key = amount_argument(args)
            if key:
                args[key] = _other_amount(args[key], money.currency_of(args))
        elif self.fault is Fault.WRONG_ITEM:
            key = item_argument(args)
            if key:
                value = args[key]
                chosen = value if isinstance(value, list) else [value]
                other = [i for i in self.seen_item_ids if i not in chosen]
                if other:
                    args[key] = [other[0], *value[1:]] if isinstance(value, list) else other[0]
        return self.call(name, **args)

    def has_new_facts(self, text: str) -> bool:
        """Whether `text` carries information for the request (ids, amounts...); hook."""
        return bool(re.search(r"\d", text))

    @abstractmethod
    def declined(self, name: str, args: dict[str, Any]) -> None:
        """The customer did not affirm the pending write: note it (the write is already
        dropped) so the agent does not ask for the same action again."""

    def order_requests(self, requests: list[Any]) -> list[Any]:
        """The order in which open requests are handled (the wrong-order fault reverses it)."""
        return list(reversed(requests)) if self.fault is Fault.WRONG_ORDER else requests

    # -- what each domain implements ---------------------------------------------------------

    @abstractmethod
    def observe_user(self, text: str) -> None:
        """Read what the customer just wrote (ids, choices, a yes or no) into the agent's notes."""

    @abstractmethod
    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        """Read a tool result into the agent's notes."""

    @abstractmethod
    def plan(self) -> Message:
        """The next assistant message: a question, a summary to confirm, tool calls, or the end."""
