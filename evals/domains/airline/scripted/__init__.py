"""How the offline models speak airline: the reference agent, the scripted customer, and the
vocabulary they share (text only)."""

from evals.domains.airline.scripted.agent import AirlineReferenceAgent
from evals.domains.airline.scripted.user import AirlineScriptedUser

__all__ = ["AirlineReferenceAgent", "AirlineScriptedUser"]
