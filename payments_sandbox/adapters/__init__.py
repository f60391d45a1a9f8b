"""Payment provider adapters behind one protocol, and the one place that picks the adapter.

Tests patch `get_adapter` (the chokepoint) to inject a configured SandboxAdapter.
"""

from __future__ import annotations

from django.conf import settings

from payments_sandbox.adapters.base import (
    PaymentAdapter,
    Prediction,
    ProviderError,
    ProviderRefund,
    ProviderTimeout,
)
from payments_sandbox.adapters.sandbox import SandboxAdapter, SandboxBehaviour
from payments_sandbox.modes import LIVE, current_mode

__all__ = [
    "PaymentAdapter",
    "Prediction",
    "ProviderError",
    "ProviderRefund",
    "ProviderTimeout",
    "SandboxAdapter",
    "SandboxBehaviour",
    "get_adapter",
    "rehearsal_adapter",
]


def get_adapter() -> PaymentAdapter:
    """The adapter that moves money in this process's mode."""
    if current_mode() == LIVE:
        from payments_sandbox.adapters.stripe_live import StripeAdapter

        return StripeAdapter(api_key=settings.STRIPE_API_KEY, api_base=settings.STRIPE_API_BASE)
    return SandboxAdapter()


def rehearsal_adapter() -> PaymentAdapter:
    """Every refund is rehearsed against the sandbox first, in either mode: the rehearsal
    never reaches a real provider."""
    return SandboxAdapter()
