"""Membership desk for a chain of gym clubs: identity and entitlements (a check-in is not a paid
entitlement), pro-rated plan changes, freezes, cancellations inside and after the commitment,
late-fee waivers, refunds of overcharges (sandbox, via payments_sandbox.domain), notifications
and notes; disputed adjustments go to a named human."""

from __future__ import annotations

from evals.engine.domain import Domain, package_domain


def load() -> Domain:
    from evals.domains.membership.scripted import MembershipReferenceAgent, MembershipScriptedUser

    about = "Member services for a chain of gym clubs."
    return package_domain(
        __name__,
        about,
        MembershipReferenceAgent.factory,
        MembershipScriptedUser.factory,
        world_module="population",
    )
