"""The offline models of `tau2_mock` (`sandbox/reference`, `sandbox/scripted`).

The scripted customer knows only τ²'s own user scenario: `vocab.customer_brief` reads its text
into `Task.scenario.data` (what it asks for, in order; for dual control, the tools the text
tells it to use), and it reads the agent's messages with the `UtteranceReader` and this
domain's entity patterns. The reference agent reads only the customer's words and its tool
results, asks before every write, and never sees the customer's tools.
"""

from evals.domains.tau2_mock.scripted.agent import MockReferenceAgent
from evals.domains.tau2_mock.scripted.user import MockScriptedUser

__all__ = ["MockReferenceAgent", "MockScriptedUser"]
