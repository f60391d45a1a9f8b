"""Billing disputes at a payment service: a customer disputes a charge; the agent verifies the
customer and finds the charge by what the customer knows, checks amount, currency and the
refundable balance (payments_sandbox.domain), rehearses the refund in the sandbox and sends it
to a named human approver, telling the customer who decides and how long it takes. A repeated
request creates no second refund; sandbox and live never mix; refunds in 0-, 2- and 3-decimal
currencies; chargebacks and suspected fraud go to named teams."""

from __future__ import annotations

from pathlib import Path

from evals.engine.domain import Domain


def load() -> Domain:
    from evals.domains.billing.rules import check_rules
    from evals.domains.billing.scripted import BillingReferenceAgent, BillingScriptedUser
    from evals.domains.billing.tasks import generate_tasks
    from evals.domains.billing.tools import TOOLS
    from evals.domains.billing.world import build_world

    return Domain(
        name="billing",
        policy=Path(__file__).with_name("policy.md").read_text(encoding="utf-8"),
        tools=TOOLS,
        rules=check_rules,
        build_world=build_world,
        load_tasks=generate_tasks,
        reference_agent=BillingReferenceAgent.factory,
        scripted_user=BillingScriptedUser.factory,
        description="Charge disputes and refunds at a payment service.",
        scripted_languages=("en", "zh-Hans"),
    )
