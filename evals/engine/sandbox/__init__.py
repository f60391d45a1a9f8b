"""Building blocks of the offline `sandbox/reference` agent and `sandbox/scripted` user.

Domains subclass `ReferenceAgentBase` and `ScriptedUserBase` in their `scripted/` package,
most through `desk.DeskAgent` and `request_user.RequestListUser`, which hold what they do
alike. Both only ever read what an LLM would: the agent the messages (text, tool calls, tool
results) and the tool schemas; the user its scenario, its persona and the agent's message text.
"""

from evals.engine.sandbox.agent import Fault, ReferenceAgentBase
from evals.engine.sandbox.user import ScriptedUserBase

__all__ = ["Fault", "ReferenceAgentBase", "ScriptedUserBase"]
