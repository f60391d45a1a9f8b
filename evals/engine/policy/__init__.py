"""Policy guard and the explicit-confirmation rule."""

from evals.engine.policy.confirmation import (
    check_confirmation,
    is_affirmation,
    is_negation_or_change,
)
from evals.engine.policy.guard import PolicyGuard, RuleCheck, blocked_message

__all__ = [
    "PolicyGuard",
    "RuleCheck",
    "blocked_message",
    "check_confirmation",
    "is_affirmation",
    "is_negation_or_change",
]
