"""Billing disputes at a payment service: a customer disputes a charge; the agent verifies the
customer and finds the charge by what the customer knows, checks amount, currency and the
refundable balance (payments_sandbox.domain), rehearses the refund in the sandbox and sends it
to a named human approver, telling the customer who decides and how long it takes. A repeated
request creates no second refund; sandbox and live never mix; refunds in 0-, 2- and 3-decimal
currencies; chargebacks and suspected fraud go to named teams."""

from __future__ import annotations

from evals.engine.domain import Domain, package_domain


def load() -> Domain:
    from evals.domains.billing.scripted import BillingReferenceAgent, BillingScriptedUser

    about = "Charge disputes and refunds at a payment service."
    return package_domain(
        __name__, about, BillingReferenceAgent.factory, BillingScriptedUser.factory
    )
