"""Compositional task generator: recipes (partial and full refunds in 0-, 2- and 3-decimal
currencies, a sandbox account, the senior approver, refusals, a repeated request, chargeback
and fraud hand-offs, an email change) × identity variants (email / full name and postcode / a
wrong postcode first), each with its gold writes.

The scenario's `data` is the customer's own structured instructions for the scripted user:
{"identity": {...}, "requests": [{"intent": ..., ...}], "ordered": bool}.
"""

from evals.domains.billing.tasks.compose import generate_tasks
from evals.domains.billing.tasks.recipes import COMPOUNDS, SINGLES, WORLD_SEED

__all__ = ["COMPOUNDS", "SINGLES", "WORLD_SEED", "generate_tasks"]
