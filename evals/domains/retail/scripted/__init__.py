"""How the offline models speak retail: the reference agent, the scripted customer, and the
vocabulary they share (text only)."""

from evals.domains.retail.scripted.agent import RetailReferenceAgent
from evals.domains.retail.scripted.user import RetailScriptedUser

__all__ = ["RetailReferenceAgent", "RetailScriptedUser"]
