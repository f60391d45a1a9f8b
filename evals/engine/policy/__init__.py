"""Policy guard and the explicit-confirmation rule."""

from evals.engine.policy.confirmation import (
    check_confirmation,
    customer_answer,
    last_summary_and_reply,
)
from evals.engine.policy.guard import PolicyGuard, RuleCheck, blocked_message

__all__ = [
    "PolicyGuard",
    "RuleCheck",
    "blocked_message",
    "check_confirmation",
    "customer_answer",
    "last_summary_and_reply",
]
