"""Base of rule-based reference agents: message bookkeeping, tool calls, confirmation
handling, and the hooks where an injected fault (evals.engine.faults) changes one behaviour."""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from decimal import Decimal
from enum import StrEnum
from typing import Any

from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.persona import Language
from evals.engine.policy import customer_answer
from evals.engine.tools import Actor, ToolKind
from evals.engine.understanding.answers import Answer


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
# A message with fewer words than this (a Chinese character counts as one) says too little
# to tell its language: "Yes.", "确认。" — an English customer's Chinese "okay" does not make
# the agent switch, nor a Chinese customer's "OK" switch it back.
_SUBSTANTIVE = 6


def customer_language(messages: Sequence[Message]) -> Language:
    """The language the customer writes, from its messages alone (an honest agent knows no
    persona): that of its latest message long enough to tell, Chinese when Chinese characters
    are at least as many as the Latin words (ids, emails and names are Latin in any language).
    English until the customer has said enough."""
    for m in reversed(messages):
        if m.role is not Role.USER or not m.content:
            continue
        cjk = len(_CJK.findall(m.content))
        latin = len(_LATIN_WORD.findall(m.content))
        if cjk + latin >= _SUBSTANTIVE:
            return Language.ZH_HANS if cjk >= latin else Language.EN
    return Language.EN


_ITEM_ID = re.compile(r'"item_id":"([^"]+)"')
_AMOUNT = re.compile(r"^\d+\.\d{2}$")


def amount_argument(arguments: Mapping[str, Any]) -> str:
    """The argument the wrong-amount fault changes: the first whose value is an amount
    ("12.50"); "" when there is none. `evals.engine.faults` reads tasks the same way."""
    return next((k for k, v in arguments.items() if isinstance(v, str) and _AMOUNT.match(v)), "")


def item_argument(arguments: Mapping[str, Any]) -> str:
    """The argument the wrong-item fault changes: `item_id`, or the first non-empty list
    named `...item_ids`; "" when there is none."""
    for key, value in arguments.items():
        if key == "item_id" and isinstance(value, str):
            return key
        if key.endswith("item_ids") and isinstance(value, list) and value:
            return key
    return ""


def _other_amount(value: str) -> str:
    """A different amount: one less (never below a cent), or one more for amounts up to 1."""
    amount = Decimal(value)
    step = Decimal("1.00")
    return str(amount - step if amount > step else amount + step)


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
        # Dual control: the customer has tools of its own (only then can the end-before-user
        # fault show: it hangs up once its own writes are done, before the customer's part).
        tools = getattr(domain, "tools", None)
        self.user_side = bool(tools is not None and tools.names(Actor.USER))
        self._write_tools = {
            t.name for t in tools or () if t.kind is ToolKind.WRITE and t.actor is Actor.AGENT
        }

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
            elif m.role is Role.TOOL:
                name, args = self._inflight.pop(m.tool_call_id, ("", {}))
                if not m.error and name in self._write_tools:
                    self.writes_done += 1
                if not m.error:
                    for item_id in _ITEM_ID.findall(m.content):
                        if item_id not in self.seen_item_ids:
                            self.seen_item_ids.append(item_id)
                self.observe_tool(name, args, m.content, m.error)
        if user_spoke:
            if self.pending is not None:
                name, args, summary = self.pending
                # The guard's own reading of the reply: what it will accept is what we act on.
                answer = customer_answer(messages)
                if answer.confirms:
                    self.pending = None
                    if answer.aside:
                        self.observe_user(answer.aside)  # a request bundled after the yes
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

    # -- helpers for subclasses ----------------------------------------------------------

    def call(self, name: str, **args: Any) -> Message:
        self._calls += 1
        call_id = f"call_{self._calls}"
        self._inflight[call_id] = (name, args)
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
                args[key] = _other_amount(args[key])
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
