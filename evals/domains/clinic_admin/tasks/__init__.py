"""Compositional task generator: recipes (book, move, cancel, record requests, document
hand-over, refusals under the notice period and the caller's authorisation, symptoms and
medication questions handed to the nurse line or the clinician, emergencies) × caller variants
(the patient, a wrong date of birth first, a guardian of a minor, a proxy), with gold writes.

The scenario's `data` is the caller's own structured instructions for the scripted customer:
{"identity": {...}, "requests": [{"intent": ..., ...}], "ordered": bool}.
"""

from evals.domains.clinic_admin.tasks.compose import generate_tasks
from evals.domains.clinic_admin.tasks.recipes import COMPOUNDS, SINGLES, WORLD_SEED

__all__ = ["COMPOUNDS", "SINGLES", "WORLD_SEED", "generate_tasks"]
