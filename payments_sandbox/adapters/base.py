"""The one protocol every payment provider adapter implements."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from payments_sandbox.domain import Money


class ProviderError(Exception):
    """The provider could not be reached or answered with an error worth retrying."""


class ProviderTimeout(ProviderError):
    """No answer in time. The provider may or may not have acted: retry with the same key."""


@dataclass(frozen=True)
class Prediction:
    outcome: str  # a PredictedOutcome value
    note: str


@dataclass(frozen=True)
class ProviderRefund:
    """A refund as the provider records it."""

    provider_refund_id: str
    idempotency_key: str
    provider_payment_id: str
    amount: Money
    status: str  # pending | succeeded | failed
    failure_reason: str = ""
    created_at: dt.datetime | None = None


class PaymentAdapter(Protocol):
    mode: str

    def rehearse_refund(self, *, provider_payment_id: str, amount: Money) -> Prediction:
        """Predict what create_refund would do, without doing it."""
        ...

    def create_refund(
        self, *, provider_payment_id: str, amount: Money, idempotency_key: str
    ) -> ProviderRefund:
        """Ask the provider to refund. The same key always yields the same refund: calling
        again after a timeout or a crash is safe. Raises ProviderError to be retried."""
        ...

    def find_refund(
        self, *, provider_payment_id: str, idempotency_key: str
    ) -> ProviderRefund | None:
        """The provider's record of the refund made with this key, if any."""
        ...

    def list_refunds(self, *, since: dt.datetime, until: dt.datetime) -> list[ProviderRefund]:
        """Every refund the provider created in [since, until)."""
        ...
