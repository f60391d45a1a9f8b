"""Mobile carrier customer care, dual control: the agent fixes the account (a line suspended
for an unpaid bill, data used up, roaming, a PUK-locked or broken SIM, network settings, plans
and bills) and guides the customer through the steps on its own phone (airplane mode, mobile
data, data roaming, APN, SIM, app permissions, restart); the oracle judges both sides."""

from __future__ import annotations

from evals.engine.domain import Domain, package_domain


def load() -> Domain:
    from evals.domains.telecom.scripted import TelecomReferenceAgent, TelecomScriptedUser

    about = "Mobile carrier customer care, dual control (the customer's own phone)."
    return package_domain(
        __name__,
        about,
        TelecomReferenceAgent.factory,
        TelecomScriptedUser.factory,
        world_module="population",
    )
