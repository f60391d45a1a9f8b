"""Compositional task generator: recipes (flight changes, cancellations, bags, name
corrections, passengers, compensation, refusals, hand-offs) × identity variants (booking
reference and last name / email / email without knowing the booking reference), each with its
gold writes.

The scenario's `data` is the customer's own structured instructions for the scripted user:
{"identity": {...}, "trip": {...}, "requests": [{"intent": ..., ...}], "ordered": bool}.
Recipes live in `recipes`, their composition into tasks in `compose`.
"""

from evals.domains.airline.tasks.compose import generate_tasks
from evals.domains.airline.tasks.recipes import COMPOUNDS, SINGLES, WORLD_SEED

__all__ = ["COMPOUNDS", "SINGLES", "WORLD_SEED", "generate_tasks"]
