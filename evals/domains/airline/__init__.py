"""Aurora Air customer service: flight changes and cancellations under fare rules (change
fee, fare difference, basic economy that cannot change, the 24-hour window), checked bags by
cabin and tier, passenger name corrections and removals, delay and cancellation compensation
as travel certificates, refunds to the original payment method in its currency (money rules
from payments_sandbox.domain); exceptions and disputes go to a named human."""

from __future__ import annotations

from evals.engine.domain import Domain, package_domain


def load() -> Domain:
    from evals.domains.airline.scripted import AirlineReferenceAgent, AirlineScriptedUser

    about = "Customer service of an airline: changes, cancellations, bags, compensation."
    return package_domain(
        __name__,
        about,
        AirlineReferenceAgent.factory,
        AirlineScriptedUser.factory,
        world_module="population",
    )
