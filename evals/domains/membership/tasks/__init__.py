"""Compositional task generator: recipes (plan changes, freezes, cancellations, fee waivers,
refunds of overcharges, entitlement questions, refusals, disputes) × identity variants (email /
member number and date of birth / a wrong date of birth first), each with its gold writes.

The scenario's `data` is the member's own structured instructions for the scripted user:
{"identity": {...}, "requests": [{"intent": ..., ...}], "ordered": bool}.
Recipes live in `recipes`, their composition into tasks in `compose`.
"""

from evals.domains.membership.tasks.compose import generate_tasks
from evals.domains.membership.tasks.recipes import COMPOUNDS, SINGLES, WORLD_SEED

__all__ = ["COMPOUNDS", "SINGLES", "WORLD_SEED", "generate_tasks"]
