"""The opening every desk domain's rules share: the hand-off to a person is always allowed,
and nothing else until the customer is verified. `verified_first` wraps a domain's own
checks, which then receive the verified customer's id."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evals.engine.messages import Violation
from evals.engine.world import World

# (world, tool name, validated arguments, verified customer id) -> violations.
VerifiedCheck = Callable[[World, str, Mapping[str, Any], str], list[Violation]]


def verified_first(
    how: str, *, transfer: str = "transfer_to_human"
) -> Callable[[VerifiedCheck], Callable[[World, str, Mapping[str, Any]], list[Violation]]]:
    """A RuleCheck that allows `transfer` always, refuses every other write with
    `identity_not_verified` (`how`: how the policy says to verify) until the session has a
    verified customer, and then runs the wrapped check with that customer's id."""

    def wrap(check: VerifiedCheck) -> Callable[[World, str, Mapping[str, Any]], list[Violation]]:
        def check_rules(world: World, tool: str, args: Mapping[str, Any]) -> list[Violation]:
            if tool == transfer:
                return []
            verified = world.session.verified_customer_id
            if not verified:
                return [Violation("identity_not_verified", how)]
            return check(world, tool, args, verified)

        check_rules.__doc__ = check.__doc__
        return check_rules

    return wrap
