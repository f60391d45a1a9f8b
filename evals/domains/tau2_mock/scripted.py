"""The offline models of `tau2_mock` (`sandbox/reference`, `sandbox/scripted`).

The scripted customer reads its own instructions from `Task.scenario.data` (`requests`,
and for dual control `before` — its own reads first, e.g. check_notifications — and `after`
— its own writes once the agent has confirmed, e.g. dismiss_notification); it never sees
the agent's tool calls. The reference agent reads only the customer's words and its tool
results, asks before every write, and never sees the customer's tools.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from evals.engine.messages import Message, Role, Signal, ToolCall
from evals.engine.persona import Persona
from evals.engine.sandbox import ReferenceAgentBase, ScriptedUserBase

_TITLE_FOR = re.compile(r"titled '([^']+)' for (user_\d+)")
_TASK_ID = re.compile(r"\b(task_\d+)\b")
DONE = "Done:"
TRANSFER = "I am transferring you to a human agent"


class MockReferenceAgent(ReferenceAgentBase):
    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.requests: list[dict[str, Any]] = []
        self.report = ""

    @classmethod
    def factory(cls, *, domain: Any, params: Mapping[str, Any], seed: int) -> MockReferenceAgent:
        return cls(domain=domain, params=params, seed=seed)

    def _add(self, request: dict[str, Any]) -> None:
        if all(r["key"] != request["key"] for r in self.requests):
            self.requests.append({**request, "state": "open"})

    def observe_user(self, text: str) -> None:
        low = text.lower()
        if m := _TITLE_FOR.search(text):
            self._add(
                {
                    "key": f"create:{m.group(1)}",
                    "kind": "create",
                    "title": m.group(1),
                    "user_id": m.group(2),
                }
            )
        for task_id in _TASK_ID.findall(text):
            if "complete" in low or "pending" in low:
                status = "pending" if "pending" in low else "completed"
                self._add(
                    {
                        "key": f"update:{task_id}",
                        "kind": "update",
                        "task_id": task_id,
                        "status": status,
                    }
                )
        if "delete" in low:
            self._add({"key": "transfer", "kind": "transfer", "text": text})
        if "compliment" in low:
            self._add({"key": "compliment", "kind": "compliment"})

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        current = next((r for r in self.requests if r["state"] == "writing"), None)
        if current is None:
            return
        current["state"] = "failed" if error else "done"
        if error:
            self.report = f"I could not do that: {content}"
            return
        if name == "create_task":
            task_id = json.loads(content).get("task_id", "")
            self.report = f"{DONE} I created the task '{args['title']}' ({task_id})."
        else:
            self.report = f"{DONE} {args['task_id']} is now {args['status']}."

    def declined(self, name: str, args: dict[str, Any]) -> None:
        for r in self.requests:
            if r["state"] == "proposed":
                r["state"] = "declined"

    def write(self, name: str, args: dict[str, Any]) -> Message:
        for r in self.requests:
            if r["state"] == "proposed":
                r["state"] = "writing"
        return super().write(name, args)

    def plan(self) -> Message:
        if self.report:
            report, self.report = self.report, ""
            return self.say(f"{report} Is there anything else I can help you with?")
        open_requests = self.order_requests([r for r in self.requests if r["state"] == "open"])
        if not open_requests:
            return self.say("How can I help you with your tasks today?")
        r = open_requests[0]
        if r["kind"] == "compliment":
            r["state"] = "done"
            return self.say("You are doing a great job keeping your tasks in order!")
        if r["kind"] == "transfer":
            r["state"] = "done"
            return self.call(
                "transfer_to_human_agents",
                summary=f"The user asks: {r['text']} This is not possible with my tools.",
            )
        r["state"] = "proposed"
        if r["kind"] == "create":
            args = {"user_id": r["user_id"], "title": r["title"]}
            return self.propose(
                "create_task",
                args,
                f"I will create a task titled '{r['title']}' for {r['user_id']}.",
            )
        args = {"task_id": r["task_id"], "status": r["status"]}
        return self.propose(
            "update_task_status", args, f"I will mark {r['task_id']} as {r['status']}."
        )


class MockScriptedUser(ScriptedUserBase):
    """Asks for each request in turn, affirms the agent's proposals, uses its own tools
    (first its reads, after the agent's confirmation its writes) and then says goodbye."""

    def __init__(self, *, scenario: Any, persona: Persona, seed: int) -> None:
        super().__init__(scenario=scenario, persona=persona, seed=seed)
        self.requests: list[dict[str, Any]] = list(self.data.get("requests") or ())
        self.before = [list(c) for c in self.data.get("before") or ()]
        self.after = [list(c) for c in self.data.get("after") or ()]
        self.queue: list[list[Any]] = []
        self.opened = False
        self.closing = False
        self.index = 0
        self.calls = 0

    @classmethod
    def factory(
        cls, *, domain: Any, scenario: Any, persona: Any, params: Mapping[str, Any], seed: int
    ) -> MockScriptedUser:
        return cls(scenario=scenario, persona=persona, seed=seed)

    def _tool(self) -> Message:
        name, args = self.queue.pop(0)
        self.calls += 1
        call = ToolCall(f"user_call_{self.calls}", name, json.dumps(args))
        return Message(Role.USER, tool_calls=(call,))

    def respond(self, messages: Sequence[Message]) -> Message:
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
            return Message.user(
                "I have done my part on my side too. That's all, thanks.", Signal.STOP
            )
        message = super().respond(messages)
        if self.queue:  # reply() chose to act on its own side first
            return self._tool()
        return message

    # -- ScriptedUserBase hooks ---------------------------------------------------------------

    def _identity(self) -> str:
        return "I am the user you have on file."

    def _open(self) -> list[int]:
        return list(range(self.index, len(self.requests)))

    def _focus(self) -> int:
        return self.index

    def _state(self, i: int) -> str:
        self.stated.add(i)
        if i >= len(self.requests):
            return "That's all."
        r = self.requests[i]
        if r["kind"] == "create":
            return f"Please create a new task titled '{r['title']}' for {r['user_id']}."
        if r["kind"] == "update":
            return f"Please mark {r['task_id']} as {r['status']}."
        if r["kind"] == "compliment":
            return "Could you also give me a compliment?"
        return str(r.get("text", self.scenario.reason))

    def opening(self) -> str:
        return f"Hello. {self._state(0)}"

    def reply(self, agent_text: str) -> tuple[str, Signal]:
        low = agent_text.lower()
        if TRANSFER.lower() in low or "transfer" in low:
            self.finished = True
            return "Okay, thank you.", Signal.STOP
        if "(yes/no)" in low or "shall i proceed" in low:
            return "Yes, please.", Signal.NONE
        settled = DONE.lower() in low or "great job" in low
        if settled:
            self.index += 1
            if self.index < len(self.requests):
                return self._state(self.index), Signal.NONE
            if self.after:
                self.queue, self.after, self.closing = self.after, [], True
                return "", Signal.NONE
            self.finished = True
            return "That's all, thank you.", Signal.STOP
        if self.asked("request"):
            return self.abandon()
        return self._state(self.index), Signal.NONE
