"""The policy guard: runs before every WRITE and returns a PolicyVerdict.

Checks, in order: the domain's deterministic rules (identity verified, refund within what is
refundable, ...) then the explicit-confirmation rule for tools that declare `confirm`. In
`enforce` mode a verdict with violations blocks the write and the violations are the tool
result the agent reads; in `observe` mode the write runs. Both are recorded on the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evals.engine.messages import GuardMode, Message, PolicyVerdict, Role, Violation
from evals.engine.policy.confirmation import check_confirmation
from evals.engine.tools import Tool
from evals.engine.world import World

# (world, tool name, validated arguments) -> violations. Pure, deterministic.
RuleCheck = Callable[[World, str, Mapping[str, Any]], list[Violation]]


def last_summary_and_reply(messages: Sequence[Message]) -> tuple[str, str]:
    """(the agent's last text before the customer's last message, that message)."""
    reply_index = -1
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role is Role.USER:
            reply_index = i
            break
    if reply_index < 0:
        return "", ""
    for j in range(reply_index - 1, -1, -1):
        m = messages[j]
        if m.role is Role.ASSISTANT and m.content:
            return m.content, messages[reply_index].content
    return "", messages[reply_index].content


class PolicyGuard:
    def __init__(self, rules: RuleCheck, mode: GuardMode = GuardMode.ENFORCE) -> None:
        self.rules = rules
        self.mode = mode

    def check(
        self,
        *,
        world: World,
        tool: Tool,
        arguments: Mapping[str, Any],
        call_id: str,
        messages: Sequence[Message],
    ) -> PolicyVerdict:
        violations = list(self.rules(world, tool.name, arguments))
        if tool.confirm is not None:
            summary, reply = last_summary_and_reply(messages)
            problem = check_confirmation(
                summary=summary,
                reply=reply,
                words=tool.confirm.words,
                key_values={k: arguments.get(k) for k in tool.confirm.keys},
            )
            if problem is not None:
                violations.append(problem)
        blocked = bool(violations) and self.mode is GuardMode.ENFORCE
        return PolicyVerdict(call_id, tool.name, tuple(violations), self.mode, blocked)


def blocked_message(verdict: PolicyVerdict) -> str:
    return "Error: blocked by policy: " + " ".join(v.message for v in verdict.violations)
