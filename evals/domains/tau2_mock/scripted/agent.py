"""The offline reference agent of `tau2_mock` (`sandbox/reference`): it reads only the
customer's words and its tool results, asks before every write, asks for a task's id when the
customer does not give one (and cannot update a task nobody can name), and never sees the
customer's tools. It answers in the customer's language (English or Chinese, read from the
customer's messages), or always in the wording the param `phrasing` names ("en", "zh")."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from evals.domains.tau2_mock.scripted.vocab import TASK_ID
from evals.engine.messages import Message
from evals.engine.sandbox.desk import WordedAgent

_TITLE_FOR = re.compile(r"(?:titled|called|named) '([^']+)' for (user_\d+)")
# "为 user_1 新建一个任务，标题叫 'X'": the user first, then the title.
_FOR_TITLED = re.compile(
    r"(?:为|给)\s*(user_\d+)\s*(?:新建|创建).{0,8}?(?:标题|名字|名称)(?:叫|是|为)+\s*'([^']+)'"
)
_COMPLETE = re.compile(r"complete|已完成|完成", re.IGNORECASE)
_PENDING = re.compile(r"pending|待处理|未完成", re.IGNORECASE)
_TASK = re.compile(r"task|任务", re.IGNORECASE)
_DELETE = re.compile(r"delete|删除", re.IGNORECASE)
_COMPLIMENT = re.compile(r"compliment|夸", re.IGNORECASE)
_NOT_KNOWN = re.compile(
    r"\b(?:don't|do not|doesn't|does not) (?:know|have|remember)\b|\bnot sure\b|\bno idea\b"
    r"|不知道|不清楚|不记得",
    re.IGNORECASE,
)
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "done_create": "Done: I created the task '{title}' ({task_id}).",
        "done_update": "Done: {task_id} is now {status}.",
        "failed": "I could not do that: {error}",
        "anything_else": "Is there anything else I can help you with?",
        "no_task_id": "Unfortunately I'm unable to update a task without its task id.",
        "how_can_i_help": "How can I help you with your tasks today?",
        "compliment": "You are doing a great job keeping your tasks in order!",
        "propose_create": "I will create a task titled '{title}' for {user_id}.",
        "propose_update": "I will mark {task_id} as {status}.",
        "ask_task": "Which task should I mark as {status}? Please give me its task id.",
        "proceed": "{summary} Shall I proceed? (yes/no)",
        "reassure": "I understand. {summary} Shall I proceed? (yes/no)",
        "status_completed": "completed",
        "status_pending": "pending",
    },
    "zh": {
        "done_create": "已为您创建任务 '{title}'（{task_id}）。",
        "done_update": "{task_id} 已标记为{status}。",
        "failed": "抱歉，没能办成：{error}",
        "anything_else": "还有其他需要帮忙的吗？",
        "no_task_id": "很抱歉，没有任务编号我无法更新任务。",
        "how_can_i_help": "您好，请问任务方面有什么可以帮您？",
        "compliment": "您把任务安排得井井有条，做得真棒！",
        "propose_create": "我将为 {user_id} 创建一个标题为 '{title}' 的任务。",
        "propose_update": "我将把 {task_id} 标记为{status}。",
        "ask_task": "您想把哪个任务标记为{status}？请告诉我它的任务编号。",
        "proceed": "{summary}可以办理吗？（是/否）",
        "reassure": "我理解。{summary}可以办理吗？（是/否）",
        "status_completed": "已完成",
        "status_pending": "待处理",
    },
}


class MockReferenceAgent(WordedAgent):
    DOMAIN = "tau2_mock"
    PHRASINGS = WORDS

    def __init__(self, *, domain: Any, params: Mapping[str, Any], seed: int) -> None:
        super().__init__(domain=domain, params=params, seed=seed)
        self.requests: list[dict[str, Any]] = []
        self.report = ""

    def _then_anything_else(self, text: str) -> str:
        return self.join([text, self.t("anything_else")])

    def _add(self, request: dict[str, Any]) -> None:
        if all(r["key"] != request["key"] for r in self.requests):
            self.requests.append({**request, "state": "open"})

    def observe_user(self, text: str) -> None:
        if m := _TITLE_FOR.search(text):
            title, user_id = m.group(1), m.group(2)
            self._add(
                {"key": f"create:{title}", "kind": "create", "title": title, "user_id": user_id}
            )
        elif m := _FOR_TITLED.search(text):
            user_id, title = m.group(1), m.group(2)
            self._add(
                {"key": f"create:{title}", "kind": "create", "title": title, "user_id": user_id}
            )
        pending = bool(_PENDING.search(text))
        status = "pending" if pending else "completed"
        wants_status = pending or bool(_COMPLETE.search(text))
        unnamed = next((r for r in self.requests if r["key"] == "update:?"), None)
        task_ids = TASK_ID.findall(text)
        if unnamed is not None and unnamed["state"] == "open" and task_ids:
            # The id the agent asked for: the request is now about that task.
            unnamed.update(key=f"update:{task_ids[0]}", task_id=task_ids[0])
        elif unnamed is not None and unnamed.get("asked") and _NOT_KNOWN.search(text):
            unnamed["state"] = "unknown"
        for task_id in task_ids:
            if wants_status:
                self._add(
                    {
                        "key": f"update:{task_id}",
                        "kind": "update",
                        "task_id": task_id,
                        "status": status,
                    }
                )
        if not task_ids and wants_status and _TASK.search(text):
            self._add({"key": "update:?", "kind": "update", "task_id": "", "status": status})
        if _DELETE.search(text):
            self._add({"key": "transfer", "kind": "transfer", "text": text})
        if _COMPLIMENT.search(text):
            self._add({"key": "compliment", "kind": "compliment"})

    def observe_tool(self, name: str, args: dict[str, Any], content: str, error: bool) -> None:
        current = next((r for r in self.requests if r["state"] == "writing"), None)
        if current is None:
            return
        current["state"] = "failed" if error else "done"
        if error:
            self.report = self.t("failed", error=content)
            return
        if name == "create_task":
            task_id = json.loads(content).get("task_id", "")
            self.report = self.t("done_create", title=args["title"], task_id=task_id)
        else:
            status = self.t(f"status_{args['status']}")
            self.report = self.t("done_update", task_id=args["task_id"], status=status)

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
            return self.say(self._then_anything_else(report))
        for r in self.requests:
            if r["state"] == "unknown":
                r["state"] = "failed"
                return self.say(self._then_anything_else(self.t("no_task_id")))
        open_requests = self.order_requests([r for r in self.requests if r["state"] == "open"])
        if not open_requests:
            return self.say(self.t("how_can_i_help"))
        r = open_requests[0]
        if r["kind"] == "update" and not r["task_id"]:
            return self._ask_task(r)
        if r["kind"] == "compliment":
            r["state"] = "done"
            return self.say(self.t("compliment"))
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
                self.t("propose_create", title=r["title"], user_id=r["user_id"]),
            )
        args = {"task_id": r["task_id"], "status": r["status"]}
        return self.propose(
            "update_task_status",
            args,
            self.t("propose_update", task_id=r["task_id"], status=self.t(f"status_{r['status']}")),
        )

    def _ask_task(self, request: dict[str, Any]) -> Message:
        """The customer wants a task updated without naming it: ask for its id."""
        request["asked"] = True
        return self.say(self.t("ask_task", status=self.t(f"status_{request['status']}")))
