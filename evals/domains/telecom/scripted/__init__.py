"""How the offline models speak telecom: the reference agent, the scripted customer holding
its phone, and the vocabulary they share (text only)."""

from evals.domains.telecom.scripted.agent import TelecomReferenceAgent
from evals.domains.telecom.scripted.user import TelecomScriptedUser

__all__ = ["TelecomReferenceAgent", "TelecomScriptedUser"]
