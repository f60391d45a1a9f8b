"""How the offline models speak membership: the reference agent, the scripted member, and the
vocabulary they share (text only)."""

from evals.domains.membership.scripted.agent import MembershipReferenceAgent
from evals.domains.membership.scripted.user import MembershipScriptedUser

__all__ = ["MembershipReferenceAgent", "MembershipScriptedUser"]
