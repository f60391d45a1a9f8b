"""Failure classification for LLM calls: infrastructure (retry, then give up without
charging the agent) versus agent (never retried: it is the model's own outcome)."""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from typing import Any

from evals.engine.errors import InfrastructureError
from evals.engine.llm.accounting import FailureClass


class ModelCallExhausted(InfrastructureError):
    """Retries exhausted on a transient provider failure (rate limit, timeout, connection
    error, 5xx). The trial is an infrastructure error: excluded from pass^k and re-run."""

    def __init__(self, message: str, *, error_class: str, attempts: int) -> None:
        super().__init__(message)
        self.error_class = error_class
        self.attempts = attempts


class ModelConfigurationError(InfrastructureError):
    """The provider refused the harness itself (bad key, unknown model, no permission,
    billing): no retry helps, and it is not the agent's fault."""

    def __init__(self, message: str, *, error_class: str) -> None:
        super().__init__(message)
        self.error_class = error_class
        self.attempts = 1


class AgentModelError(Exception):
    """The model under test caused this outcome: context window exceeded, content policy,
    a request the provider rejects as invalid. Never retried; an agent raising it ends the
    trial as the agent's failure (`agent_error`)."""

    def __init__(self, message: str, *, kind: str, error_class: str, role: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.error_class = error_class
        self.role = role


@dataclass(frozen=True, slots=True)
class Classified:
    failure: FailureClass
    retryable: bool
    kind: str  # rate_limit, timeout, connection, server, context_window, ...
    retry_after: float | None = None


def classify(exc: BaseException) -> Classified | None:
    """Classify a LiteLLM exception; None for anything else (a bug: let it propagate)."""
    import litellm  # already imported by the caller; this is a dict lookup

    infra, agent = FailureClass.INFRASTRUCTURE, FailureClass.AGENT
    if isinstance(exc, litellm.ContextWindowExceededError):
        return Classified(agent, False, "context_window_exceeded")
    if isinstance(exc, litellm.ContentPolicyViolationError):
        return Classified(agent, False, "content_policy")
    if isinstance(
        exc,
        litellm.AuthenticationError
        | litellm.PermissionDeniedError
        | litellm.NotFoundError
        | litellm.exceptions.PaymentRequiredError
        | litellm.exceptions.LiteLLMUnknownProvider
        | litellm.UnsupportedParamsError
        | litellm.BudgetExceededError,
    ):
        return Classified(infra, False, "configuration")
    if isinstance(exc, litellm.BadRequestError | litellm.UnprocessableEntityError):
        return Classified(agent, False, "bad_request")
    if isinstance(exc, litellm.RateLimitError):
        return Classified(infra, True, "rate_limit", retry_after_seconds(exc))
    if isinstance(exc, litellm.Timeout):
        return Classified(infra, True, "timeout")
    if isinstance(exc, litellm.APIConnectionError):
        return Classified(infra, True, "connection")
    if isinstance(
        exc,
        litellm.InternalServerError | litellm.ServiceUnavailableError | litellm.BadGatewayError,
    ):
        return Classified(infra, True, "server", retry_after_seconds(exc))
    if isinstance(exc, litellm.APIResponseValidationError):
        return Classified(infra, True, "invalid_response")
    if isinstance(exc, litellm.APIError):
        status = getattr(exc, "status_code", None) or 0
        return Classified(infra, status >= 500 or status in (408, 409), "server")
    return None


def retry_after_seconds(exc: BaseException) -> float | None:
    """The provider's Retry-After (seconds or HTTP date; `retry-after-ms` first)."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())
