from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from identity.models import Operator
from payments_sandbox import adapters
from payments_sandbox.adapters import SandboxAdapter, SandboxBehaviour
from payments_sandbox.domain import Money
from payments_sandbox.models import Payment
from payments_sandbox.services import payment_capture
from tests.conftest import make_service_token, token_client

AGENT_SCOPES = ["refunds:request", "refunds:preview", "refunds:read", "payments:read"]


@pytest.fixture
def make_payment(db: None) -> Callable[..., Payment]:
    def make(amount: str = "50.00", currency: str = "USD", **kwargs: Any) -> Payment:
        return payment_capture(
            actor=None,
            amount=Money.parse(amount, currency),
            customer_email=kwargs.pop("customer_email", "customer@example.test"),
            **kwargs,
        )

    return make


@pytest.fixture
def payment(make_payment: Callable[..., Payment]) -> Payment:
    return make_payment("50.00", "USD")


@pytest.fixture
def sandbox(monkeypatch: pytest.MonkeyPatch) -> Callable[..., SandboxAdapter]:
    """Install a SandboxAdapter with the given behaviour as the process's adapter."""

    def install(**behaviour: Any) -> SandboxAdapter:
        adapter = SandboxAdapter(SandboxBehaviour(**behaviour))
        monkeypatch.setattr(adapters, "get_adapter", lambda: adapter)
        monkeypatch.setattr("payments_sandbox.services.execution.get_adapter", lambda: adapter)
        monkeypatch.setattr("payments_sandbox.services.reconciliation.get_adapter", lambda: adapter)
        return adapter

    return install


@pytest.fixture
def agent_runtime(db: None) -> tuple[Operator, Any]:
    """The AI agent's service principal and an API client holding its token."""
    principal, raw = make_service_token(AGENT_SCOPES)
    return principal, token_client(raw)
