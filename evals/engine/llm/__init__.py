"""LLM access for the engine: the model client (the one chokepoint for LLM calls), its
per-trial accounting, failure classification and the optional per-trial cache.

Importing this package does not import LiteLLM; the first call does.
"""

from evals.engine.llm.accounting import CallRecord, CallRole, FailureClass, TrialAccounting
from evals.engine.llm.cache import DiskCache, MemoryCache, ResponseCache
from evals.engine.llm.client import ModelClient
from evals.engine.llm.errors import AgentModelError, ModelCallExhausted, ModelConfigurationError
from evals.engine.llm.limits import ProviderLimits
from evals.engine.llm.spec import Completion, ModelSpec, RetryPolicy

__all__ = [
    "AgentModelError",
    "CallRecord",
    "CallRole",
    "Completion",
    "DiskCache",
    "FailureClass",
    "MemoryCache",
    "ModelCallExhausted",
    "ModelClient",
    "ModelConfigurationError",
    "ModelSpec",
    "ProviderLimits",
    "ResponseCache",
    "RetryPolicy",
    "TrialAccounting",
]
