"""Mobile carrier customer care, dual control: the agent fixes the account (a line suspended
for an unpaid bill, data used up, roaming, a PUK-locked or broken SIM, network settings, plans
and bills) and guides the customer through the steps on its own phone (airplane mode, mobile
data, data roaming, APN, SIM, app permissions, restart); the oracle judges both sides."""

from __future__ import annotations

from pathlib import Path

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.telecom.rules import check_rules
    from evals.domains.telecom.scripted import TelecomReferenceAgent, TelecomScriptedUser
    from evals.domains.telecom.tasks import generate_tasks
    from evals.domains.telecom.tools import ASSERTIONS, TOOLS
    from evals.domains.telecom.world import build_world

    return Domain(
        name="telecom",
        policy=Path(__file__).with_name("policy.md").read_text(encoding="utf-8"),
        tools=TOOLS,
        rules=check_rules,
        build_world=build_world,
        load_tasks=generate_tasks,
        reference_agent=TelecomReferenceAgent.factory,
        scripted_user=TelecomScriptedUser.factory,
        assertions=ASSERTIONS,
        description="Mobile carrier customer care, dual control (the customer's own phone).",
        scripted_languages=("en", "zh-Hans"),
    )
