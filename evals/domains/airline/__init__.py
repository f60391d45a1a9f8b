"""Aurora Air customer service: flight changes and cancellations under fare rules (change
fee, fare difference, basic economy that cannot change, the 24-hour window), checked bags by
cabin and tier, passenger name corrections and removals, delay and cancellation compensation
as travel certificates, refunds to the original payment method in its currency (money rules
from payments_sandbox.domain); exceptions and disputes go to a named human."""

from __future__ import annotations

from pathlib import Path

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.airline.rules import check_rules
    from evals.domains.airline.scripted import AirlineReferenceAgent, AirlineScriptedUser
    from evals.domains.airline.tasks import generate_tasks
    from evals.domains.airline.tools import TOOLS
    from evals.domains.airline.world import build_world

    return Domain(
        name="airline",
        policy=Path(__file__).with_name("policy.md").read_text(encoding="utf-8"),
        tools=TOOLS,
        rules=check_rules,
        build_world=build_world,
        load_tasks=generate_tasks,
        reference_agent=AirlineReferenceAgent.factory,
        scripted_user=AirlineScriptedUser.factory,
        description="Customer service of an airline: changes, cancellations, bags, compensation.",
        scripted_languages=("en", "zh-Hans"),
    )
