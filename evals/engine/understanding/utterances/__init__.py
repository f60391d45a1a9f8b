"""Reads what an agent's message asks of the customer (placeholder docstring, rewritten below)."""

from evals.engine.understanding.utterances.model import Act, ActKind, Entity, EntityPattern, Reading
from evals.engine.understanding.utterances.options import option_key
from evals.engine.understanding.utterances.reader import UtteranceReader

__all__ = ["Act", "ActKind", "Entity", "EntityPattern", "Reading", "UtteranceReader", "option_key"]
