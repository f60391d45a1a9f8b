"""How the offline models speak billing: the reference agent, the scripted customer, and the
vocabulary they share (text only)."""

from evals.domains.billing.scripted.agent import BillingReferenceAgent
from evals.domains.billing.scripted.user import BillingScriptedUser

__all__ = ["BillingReferenceAgent", "BillingScriptedUser"]
