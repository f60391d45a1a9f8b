"""Retail after-sales: returns, exchanges, cancellations, address changes, refund status and
damaged-item refunds (sandbox, via payments_sandbox.domain); disputes go to a named human."""

from __future__ import annotations

from pathlib import Path

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.retail.rules import check_rules
    from evals.domains.retail.scripted import RetailReferenceAgent, RetailScriptedUser
    from evals.domains.retail.tasks import generate_tasks
    from evals.domains.retail.tools import TOOLS
    from evals.domains.retail.world import build_world

    return Domain(
        name="retail",
        policy=Path(__file__).with_name("policy.md").read_text(encoding="utf-8"),
        tools=TOOLS,
        rules=check_rules,
        build_world=build_world,
        load_tasks=generate_tasks,
        reference_agent=RetailReferenceAgent.factory,
        scripted_user=RetailScriptedUser.factory,
        description="After-sales for an online store.",
        scripted_languages=("en", "zh-Hans"),
    )
