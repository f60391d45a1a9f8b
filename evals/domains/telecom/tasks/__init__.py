"""Compositional task generator: recipes (a line suspended for an unpaid bill, data used up,
wrong network settings, roaming abroad, a PUK-locked or broken SIM, plan changes, bills,
disputes, fraud reviews, refusals) x identity variants, each with the agent's gold writes, the
customer's own writes on its phone and the assertions that judge the phone.

The scenario's `data` is the customer's own structured instructions for the scripted user:
{"identity": {...}, "requests": [{"intent": ..., ...}], "ordered": bool}.
"""

from evals.domains.telecom.tasks.compose import generate_tasks
from evals.domains.telecom.tasks.recipes import COMPOUNDS, SINGLES

__all__ = ["COMPOUNDS", "SINGLES", "generate_tasks"]
