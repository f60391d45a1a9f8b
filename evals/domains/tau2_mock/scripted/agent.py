"""The offline reference agent of `tau2_mock` (`sandbox/reference`): it reads only the
customer's words and its tool results, asks before every write, asks for a task's id when the
customer does not give one (and cannot update a task nobody can name), and never sees the
customer's tools."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from evals.domains.tau2_mock.scripted.vocab import TASK_ID
from evals.engine.messages import Message
from evals.engine.sandbox import ReferenceAgentBase

_TITLE_FOR = re.compile(r"(?:titled|called|named) '([^']+)' for (user_\d+)")
_NOT_KNOWN = re.compile(
    r"\b(?:don't|do not|doesn't|does not) (?:know|have|remember)\b|\bnot sure\b|\bno idea\b"
    r"|不知道|不清楚|不记得",
    re.IGNORECASE,
)
DONE = "Done:"
ANYTHING_ELSE = "Is there anything else I can help you with?"


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
        status = "pending" if "pending" in low else "completed"
        unnamed = next((r for r in self.requests if r["key"] == "update:?"), None)
        task_ids = TASK_ID.findall(text)
        if unnamed is not None and unnamed["state"] == "open" and task_ids:
            # The id the agent asked for: the request is now about that task.
            unnamed.update(key=f"update:{task_ids[0]}", task_id=task_ids[0])
        elif unnamed is not None and unnamed.get("asked") and _NOT_KNOWN.search(text):
            unnamed["state"] = "unknown"
        for task_id in task_ids:
            if "complete" in low or "pending" in low:
                self._add(
                    {
                        "key": f"update:{task_id}",
                        "kind": "update",
                        "task_id": task_id,
                        "status": status,
                    }
                )
        if not task_ids and ("complete" in low or "pending" in low) and "task" in low:
            self._add({"key": "update:?", "kind": "update", "task_id": "", "status": status})
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
            return self.say(f"{report} {ANYTHING_ELSE}")
        for r in self.requests:
            if r["state"] == "unknown":
                r["state"] = "failed"
                return self.say(
                    f"Unfortunately I'm unable to update a task without its task id. {ANYTHING_ELSE}"
                )
        open_requests = self.order_requests([r for r in self.requests if r["state"] == "open"])
        if not open_requests:
            return self.say("How can I help you with your tasks today?")
        r = open_requests[0]
        if r["kind"] == "update" and not r["task_id"]:
            return self._ask_task(r)
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

    def _ask_task(self, request: dict[str, Any]) -> Message:
        """The customer wants a task updated without naming it: ask for its id."""
        request["asked"] = True
        return self.say(
            f"Which task should I mark as {request['status']}? Please give me its task id."
        )
