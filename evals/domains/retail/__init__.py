"""Retail after-sales: returns, exchanges, cancellations, address changes, refund status and
damaged-item refunds (sandbox, via payments_sandbox.domain); disputes go to a named human."""

from __future__ import annotations

from evals.engine.domain import Domain, package_domain


def load() -> Domain:
    from evals.domains.retail.scripted import RetailReferenceAgent, RetailScriptedUser

    about = "After-sales for an online store."
    return package_domain(__name__, about, RetailReferenceAgent.factory, RetailScriptedUser.factory)
