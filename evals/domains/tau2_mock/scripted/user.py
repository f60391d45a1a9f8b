"""The offline customer of `tau2_mock` (`sandbox/scripted`).

It knows only its brief (`vocab.customer_brief`, read from τ²'s user-scenario text) and reads
the agent's messages by intent and entities (`vocab.READER`): it states its requests one at a
time, answers what it is asked from what it knows (and says when it does not know), agrees to a
proposal only when it is what it asked for, uses its own tools where its scenario says so, says
"Sorry, what do you need from me?" when it cannot tell what the agent wants, and stops once its
instructions are fulfilled (or refused). It never sees the agent's tool calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from evals.domains.tau2_mock.scripted.customer_phrases import PHRASES, scenario_zh
from evals.domains.tau2_mock.scripted.vocab import (
    CANNOT,
    COMPLETED,
    FUTURE,
    PENDING,
    PRAISE,
    QUOTED,
    READER,
    TASK_ID,
    asks_task_id,
)
from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.persona import Language, Persona
from evals.engine.sandbox import ScriptedUserBase
from evals.engine.understanding.utterances import Act, ActKind, Reading

_ASKS = (ActKind.ASK, ActKind.VERIFY, ActKind.CHOICE)


class MockScriptedUser(ScriptedUserBase):
    reader = READER
    PHRASES = PHRASES

    def __init__(self, *, scenario: Any, persona: Persona, seed: int) -> None:
        self.told: list[str] = []
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.requests: list[dict[str, Any]] = [dict(r) for r in self.data.get("requests") or ()]
        self.before = [list(c) for c in self.data.get("before") or ()]
        self.after = [list(c) for c in self.data.get("after") or ()]
        self.queue: list[list[Any]] = []
        self.then = ""  # what to say once the queued own-side calls have run
        self.opened = False
        self.closing = False
        self.refused = False
        self.index = 0
        self.calls = 0

    def _tool(self) -> Message:
        name, args = self.queue.pop(0)
        self.calls += 1
        call = ToolCall(f"user_call_{self.calls}", name, json.dumps(args))
        return Message(Role.USER, tool_calls=(call,))

    def respond(self, messages: Sequence[Message]) -> Message:
        # What the agent has told this customer (earlier in the conversation too, as in a
        # conversation that continues τ²'s message history) is the customer's to use.
        self.told = [
            i for m in messages if m.role is Role.ASSISTANT for i in TASK_ID.findall(m.content)
        ]
        if self.queue:
            return self._tool()
        if not self.opened:
            if self.before:
                self.queue, self.before = self.before, []
                return self._tool()
            self.opened = True
            return Message.user(self.style(self.opening()))
        if self.closing:
            self.finished = True
            return Message.user(self.say("my_side_done"), Signal.STOP)
        if self.then:
            text, self.then = self.then, ""
            return Message.user(self.style(text))
        message = super().respond(messages)
        if self.queue:  # reply() chose to act on its own side first
            return self._tool()
        return message

    # -- ScriptedUserBase hooks ---------------------------------------------------------------

    def _identity(self, slots: tuple[str, ...] = ()) -> str:
        user_id = next((r["user_id"] for r in self.requests if r.get("user_id")), "")
        return self.say("its_user_id", user_id=user_id) if user_id else self.say("no_user_id")

    def _open(self) -> list[int]:
        return list(range(self.index, len(self.requests)))

    def _focus(self) -> int:
        return self.index

    def _state(self, i: int) -> str:
        self.stated.add(i)
        if i >= len(self.requests):
            return self.say("that_is_all")
        r = self.requests[i]
        if r["kind"] == "create":
            return self.say("create", title=r["title"], user_id=r["user_id"])
        if r["kind"] == "update" and r["task_id"]:
            return self.say("mark", task_id=r["task_id"], status=self._status(r["status"]))
        if r["kind"] == "update":
            return self.join(
                self.say("mark_unnamed", status=self._status(r["status"])),
                self._scenario_words(r.get("about", "")),
            )
        if r["kind"] == "compliment":
            return self.say("compliment")
        return self._scenario_words(str(r.get("text") or self.scenario.reason))

    def _status(self, status: str) -> str:
        return self.say(f"status_{status}")

    def _scenario_words(self, text: str) -> str:
        """What τ²'s scenario says in its own (English) words, in the customer's language:
        each sentence the Chinese customer has words for in Chinese, the others quoted."""
        if self.language is Language.EN or not text:
            return text
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
        return self.join(*(scenario_zh(s) or self.say("quoted", text=s) for s in sentences))

    def opening(self) -> str:
        return self.say("hello", request=self._state(0))

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        reading = READER.read(agent_text)
        focus = self.requests[self.index] if self.index < len(self.requests) else None
        proposal = reading.first(ActKind.CONFIRM) or reading.first(ActKind.CHECK)
        if proposal is not None and proposal.action == "handoff":
            return self._answer_proposal(focus, proposal, reading)
        if reading.has(ActKind.HANDOFF):
            self.finished = True
            return self.say("transfer_thanks"), Signal.STOP
        if proposal is not None:
            return self._answer_proposal(focus, proposal, reading)
        if any(reading.has(k) for k in _ASKS) or asks_task_id(agent_text):
            return self._answer_asks(focus, reading, agent_text)
        step = reading.first(ActKind.USER_STEP)
        if step is not None:
            return self._user_step(step)
        if focus is None:
            self.finished = True
            return self.say("all_thanks"), Signal.STOP
        if self._done(reading) or (focus["kind"] == "compliment" and PRAISE.search(agent_text)):
            return self._next()
        if reading.has(ActKind.REFUSE) or CANNOT.search(agent_text):
            self.refused = True
            return self._next()
        if any(reading.has(k) for k in (ActKind.NOT_FOUND, ActKind.GREETING, ActKind.CLOSING)):
            return self._restate("request")
        if self.asked("unclear"):
            return self.say("walk_away"), Signal.ABANDON
        return self.say("what_do_you_need"), Signal.NONE

    # -- what the customer does with each kind of message -------------------------------------

    def _restate(self, kind: str) -> tuple[str, Signal]:
        if self.index in self.stated and self.asked(kind):
            return self.abandon()
        return self._state(self.index), Signal.NONE

    def _next(self) -> tuple[str, Signal]:
        """The focus request is settled (done, or refused): the next one, or the end."""
        self.index += 1
        if self.index < len(self.requests):
            return self._state(self.index), Signal.NONE
        self.finished = True
        if self.refused:
            return self.say("all_thanks_anyway"), Signal.STOP
        if self.after:
            self.finished = False
            self.queue, self.after, self.closing = self.after, [], True
            return "", Signal.NONE
        return self.say("all_thanks"), Signal.STOP

    def _done(self, reading: Reading) -> bool:
        """The agent states that it did something (not that it will) and names no other task
        than the one the customer asked about."""
        done = [a for a in reading.of(ActKind.DONE) if not FUTURE.search(a.text)]
        if not done:
            return False
        r = self.requests[self.index]
        named = {v for a in done for v in a.values("task_id")}
        return not (r["kind"] == "update" and r["task_id"] and named and r["task_id"] not in named)

    def _answer_proposal(
        self, focus: dict[str, Any] | None, proposal: Act, reading: Reading
    ) -> tuple[str, Signal]:
        if focus is None:
            self.finished = True
            return self.say("no_thanks"), Signal.STOP
        verdict = _matches(focus, proposal, reading)
        if verdict is None:
            if self.asked("unclear"):
                return self.say("walk_away"), Signal.ABANDON
            return self.say("what_do_you_need"), Signal.NONE
        if verdict:
            return self.say("yes_please"), Signal.NONE
        if self.asked("wrong"):
            return self.abandon()
        return self.say("not_asked", request=self._state(self.index)), Signal.NONE

    def _answer_asks(
        self, focus: dict[str, Any] | None, reading: Reading, text: str
    ) -> tuple[str, Signal]:
        slots = [s for kind in _ASKS for a in reading.of(kind) for s in a.slots]
        if reading.has(ActKind.VERIFY) and not slots:
            slots.append("user_id")
        if asks_task_id(text):
            slots.insert(0, "task_id")
        if any(
            o in ("pending", "completed") for a in reading.of(ActKind.CHOICE) for o in a.options
        ):
            slots.append("status")
        answers = []
        for slot in dict.fromkeys(slots):
            if self.asked(f"ask:{slot}"):
                return self.abandon()
            answers.append(self._answer(focus or {}, slot))
        known = [a for a in answers if a]
        if not known:
            return self.say("dont_know"), Signal.NONE
        return self.join(*known), Signal.NONE

    def _answer(self, r: Mapping[str, Any], slot: str) -> str:
        if slot == "task_id":
            if r.get("task_id"):
                return self.say("its_task", task_id=r["task_id"])
            if len(set(self.told)) == 1:
                return self.say("told_task", task_id=self.told[0])
            return self.join(self.say("no_task_id"), self._scenario_words(r.get("about", "")))
        if slot == "user_id":
            return self._identity()
        if slot == "title" and r.get("title"):
            return self.say("title_is", title=r["title"])
        if slot == "description":
            return self.say("no_description")
        if slot in ("status", "option") and r.get("status"):
            return self.say("mark_it", status=self._status(r["status"]))
        return ""

    def _user_step(self, step: Act) -> tuple[str, Signal]:
        """The agent asks the customer to act on its own side: it does what its scenario lets
        it do (check its notifications; dismiss one its scenario says to dismiss)."""
        if step.action == "check" and "notifications" in step.slots:
            self.queue = [["check_notifications", {}]]
            self.then = self.say("checked")
            return "", Signal.NONE
        if step.action in ("dismiss", "clear", "remove") and self.after:
            self.queue, self.after = self.after, []
            self.then = self.say("dismissed")
            return "", Signal.NONE
        return self.say("cannot"), Signal.NONE


def _matches(r: Mapping[str, Any], proposal: Act, reading: Reading) -> bool | None:
    """Whether the agent's proposal is what the customer asked for (None: cannot tell)."""
    text = reading.text
    actions = {proposal.action} | {a.action for a in reading.of(ActKind.DONE)}
    task_ids = set(reading.values("task_id"))
    user_ids = set(reading.values("user_id"))
    status = "pending" if PENDING.search(text) else "completed" if COMPLETED.search(text) else ""
    titles = {next(g for g in m.groups() if g).lower() for m in QUOTED.finditer(text)}
    if r["kind"] == "create":
        if "update" in actions or task_ids or user_ids - {r["user_id"]}:
            return False
        if titles and r["title"].lower() not in titles:
            return False
        return True if "create" in actions or r["title"].lower() in text.lower() else None
    if r["kind"] == "update":
        if "create" in actions or (status and status != r["status"]):
            return False
        if r["task_id"] and task_ids and task_ids != {r["task_id"]}:
            return False
        # A customer who cannot name its task takes the agent's word for which one it is.
        return True if task_ids or status or "update" in actions else None
    if r["kind"] == "other":
        return True if proposal.action == "handoff" else None if not task_ids else False
    return None
