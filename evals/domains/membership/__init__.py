"""Membership desk for a chain of gym clubs: identity and entitlements (a check-in is not a paid
entitlement), pro-rated plan changes, freezes, cancellations inside and after the commitment,
late-fee waivers, refunds of overcharges (sandbox, via payments_sandbox.domain), notifications
and notes; disputed adjustments go to a named human."""

from __future__ import annotations

from pathlib import Path

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.membership.population import build_world
    from evals.domains.membership.rules import check_rules
    from evals.domains.membership.scripted import MembershipReferenceAgent, MembershipScriptedUser
    from evals.domains.membership.tasks import generate_tasks
    from evals.domains.membership.tools import TOOLS

    return Domain(
        name="membership",
        policy=Path(__file__).with_name("policy.md").read_text(encoding="utf-8"),
        tools=TOOLS,
        rules=check_rules,
        build_world=build_world,
        load_tasks=generate_tasks,
        reference_agent=MembershipReferenceAgent.factory,
        scripted_user=MembershipScriptedUser.factory,
        description="Member services for a chain of gym clubs.",
        scripted_languages=("en", "zh-Hans"),
    )
