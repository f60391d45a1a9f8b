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
# (world, the text of one agent message) -> violations. Pure, deterministic.
MessageCheck = Callable[[World, str], list[Violation]]
# The verdict on a message names this in place of a tool; its call id is `message:<index>`.
MESSAGE = "(message)"


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


def check_message(
    rules: MessageCheck, *, world: World, text: str, index: int, mode: GuardMode
) -> PolicyVerdict | None:
    """The domain's message rules on one agent message (`Domain.message_rules`): a verdict
    when the message breaks the policy (a clinic's desk giving clinical advice), else None.
    Words already said cannot be blocked, so the verdict never is, in either mode; its
    violations count exactly like a write's (the oracle's `policy` component, the report's
    violation count)."""
    violations = tuple(rules(world, text))
    if not violations:
        return None
    return PolicyVerdict(f"message:{index}", MESSAGE, violations, mode, False)


def blocked_message(verdict: PolicyVerdict) -> str:
    return "Error: blocked by policy: " + " ".join(v.message for v in verdict.violations)
