"""Compositional task generator: recipes (intents, compounds, policy edge cases, refusals) ×
identity variants (email / name + zip / order id unknown), each with its gold writes.

The scenario's `data` is the customer's own structured instructions for the scripted user:
{"identity": {...}, "requests": [{"intent": ..., ...}], "order_known": bool}; a request
carries no `order_id` when `order_known` is false: that customer knows its order by its items.
Recipes live in `recipes`, their composition into tasks in `compose`.
"""

from evals.domains.retail.tasks.compose import generate_tasks
from evals.domains.retail.tasks.recipes import PARTS, SINGLES, WORLD_SEED

__all__ = ["PARTS", "SINGLES", "WORLD_SEED", "generate_tasks"]
