"""The policy guard: runs before every WRITE and returns a PolicyVerdict.

Checks, in order: the domain's deterministic rules (identity verified, refund within what is
refundable, ...) then the explicit-confirmation rule for tools that declare `confirm`. In
`enforce` mode a verdict with violations blocks the write and the violations are the tool
result the agent reads; in `observe` mode the write runs. Both are recorded on the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evals.engine.messages import GuardMode, Message, PolicyVerdict, Violation
from evals.engine.policy.confirmation import check_confirmation, last_summary_and_reply
from evals.engine.tools import Tool
from evals.engine.world import World

# (world, tool name, validated arguments) -> violations. Pure, deterministic.
RuleCheck = Callable[[World, str, Mapping[str, Any]], list[Violation]]


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
