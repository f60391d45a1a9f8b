"""What the oracle returns: the reward of one trial, its components and its failure class."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class FailureClass(StrEnum):
    NONE = "none"
    INTENT_MISREAD = "intent_misread"
    WRONG_ORDER = "wrong_order"
    WRONG_ARGUMENTS = "wrong_arguments"
    OMISSION = "omission"
    POLICY_VIOLATION = "policy_violation"
    USER_ABANDONED = "user_abandoned"
    COORDINATION = "coordination_failure"
    AGENT_ERROR = "agent_error"
    # Handed the customer to a human (tool, announcement or the customer's ###TRANSFER###)
    # on a task that a human was not needed for.
    NEEDLESS_TRANSFER = "needless_transfer"
    # Ended at a limit (turns, wall time, tool errors): a failure whatever the final state.
    LIMIT_REACHED = "limit_reached"
    # The customer left while the agent's last message asked to go ahead with something no
    # outstanding write of the task is: a wrong, needless or unclear proposal.
    CUSTOMER_LEFT = "customer_left"
    # A refusal task the agent refused without reading what the policy decides on, or
    # without telling the customer the policy's reason.
    UNCHECKED_REFUSAL = "unchecked_refusal"
    INFRASTRUCTURE = "infrastructure"
    SIMULATOR_ERROR = "simulator_error"
    # Success depends on natural-language assertions and the run had no judge: neither a
    # pass nor a failure; counted apart, and a gate cannot pass it.
    NOT_JUDGED = "not_judged"


@dataclass(frozen=True)
class Evaluation:
    reward: float
    components: Mapping[str, float]
    failure: FailureClass
    diff: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    # The published benchmark's own criteria for this trial (`Domain.published_reward`; None:
    # left to the judge). Reported beside `reward`, never multiplied into it.
    published: Mapping[str, float | None] = field(default_factory=dict)

    @property
    def published_reward(self) -> float | None:
        """The benchmark's reward by its own definition: the product of its criteria; None
        when the domain publishes none or a criterion awaits the judge."""
        if not self.published or any(v is None for v in self.published.values()):
            return None
        reward = 1.0
        for value in self.published.values():
            reward *= value or 0.0
        return reward

    def to_dict(self) -> dict[str, Any]:
        return {
            "reward": self.reward,
            "components": dict(self.components),
            "failure": self.failure.value,
            "diff": list(self.diff),
            "notes": list(self.notes),
            "published": dict(self.published),
        }
