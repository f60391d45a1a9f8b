"""Policy guard and the explicit-confirmation rule."""

from evals.engine.policy.confirmation import (
    check_confirmation,
    customer_answer,
    last_summary_and_reply,
)
from evals.engine.policy.guard import (
    MESSAGE,
    MessageCheck,
    PolicyGuard,
    RuleCheck,
    blocked_message,
    check_message,
)

__all__ = [
    "MESSAGE",
    "MessageCheck",
    "PolicyGuard",
    "RuleCheck",
    "blocked_message",
    "check_confirmation",
    "check_message",
    "customer_answer",
    "last_summary_and_reply",
]
