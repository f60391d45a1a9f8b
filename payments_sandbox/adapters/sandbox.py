"""An in-process simulated provider: deterministic, configurable, with its own ledger.

Behaviour is decided by the amount, like a provider's test cards, so a demo or a test picks
an outcome by picking an amount (defaults below; a SandboxBehaviour changes them):

    minor units ending in 13  -> declined (the provider records a failed refund)
    minor units ending in 08  -> the provider records the refund, but the answer is lost
                                 (ProviderTimeout); a retry with the same key gets it
    minor units ending in 07  -> accepted as pending; settles `settle_seconds` later
    anything else             -> succeeds at once

The provider's side is the SandboxProviderRefund table, written in its own autocommit
statements as a remote provider would, regardless of what our transaction does next.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from payments_sandbox.adapters.base import (
    Prediction,
    ProviderError,
    ProviderRefund,
    ProviderTimeout,
)
from payments_sandbox.domain import Money
from payments_sandbox.models import PredictedOutcome, ProviderRefundStatus, SandboxProviderRefund


@dataclass(frozen=True)
class SandboxBehaviour:
    decline_suffix: str = "13"
    timeout_suffix: str = "08"
    delayed_suffix: str = "07"
    settle_seconds: int = 60
    # Provider payment ids whose refunds are always declined (e.g. a closed card).
    declined_payments: frozenset[str] = field(default_factory=frozenset)

    def outcome(self, *, provider_payment_id: str, amount: Money) -> str:
        digits = str(abs(amount.amount)).rjust(2, "0")
        if provider_payment_id in self.declined_payments or digits.endswith(self.decline_suffix):
            return PredictedOutcome.DECLINE
        if digits.endswith(self.timeout_suffix):
            return PredictedOutcome.TIMEOUT
        if digits.endswith(self.delayed_suffix):
            return PredictedOutcome.DELAYED
        return PredictedOutcome.SUCCEED


# Stored on the refund in English (gettext_noop marks them for the catalogue); the pages
# translate them for each reader with the `prediction_note` filter.
_NOTES = {
    PredictedOutcome.SUCCEED: gettext_noop(
        "The provider will accept and settle the refund at once."
    ),
    PredictedOutcome.DECLINE: gettext_noop(
        "The provider will decline this refund; it will end as failed."
    ),
    PredictedOutcome.TIMEOUT: gettext_noop(
        "The provider will be slow to answer; the refund is retried with "
        "the same key and settles once an answer arrives."
    ),
    PredictedOutcome.DELAYED: gettext_noop(
        "The provider will accept the refund as pending and settle it "
        "later; recovery picks up the result."
    ),
}


def _to_provider_refund(row: SandboxProviderRefund) -> ProviderRefund:
    return ProviderRefund(
        provider_refund_id=row.provider_refund_id,
        idempotency_key=row.idempotency_key,
        provider_payment_id=row.provider_payment_id,
        amount=Money(row.amount, row.currency),
        status=row.status,
        failure_reason=row.failure_reason,
        created_at=row.created_at,
    )


class SandboxAdapter:
    mode = "sandbox"

    def __init__(self, behaviour: SandboxBehaviour | None = None) -> None:
        self.behaviour = behaviour or SandboxBehaviour()

    def rehearse_refund(self, *, provider_payment_id: str, amount: Money) -> Prediction:
        outcome = self.behaviour.outcome(provider_payment_id=provider_payment_id, amount=amount)
        return Prediction(outcome=outcome, note=_NOTES[PredictedOutcome(outcome)])

    def create_refund(
        self, *, provider_payment_id: str, amount: Money, idempotency_key: str
    ) -> ProviderRefund:
        existing = self._settled(
            SandboxProviderRefund.objects.filter(idempotency_key=idempotency_key).first()
        )
        if existing is not None:
            return self._same_request(existing, provider_payment_id, amount)
        outcome = self.behaviour.outcome(provider_payment_id=provider_payment_id, amount=amount)
        now = timezone.now()
        status = {
            PredictedOutcome.DECLINE: ProviderRefundStatus.FAILED,
            PredictedOutcome.DELAYED: ProviderRefundStatus.PENDING,
        }.get(PredictedOutcome(outcome), ProviderRefundStatus.SUCCEEDED)
        try:
            with transaction.atomic():
                row = SandboxProviderRefund.objects.create(
                    provider_refund_id=f"sre_{uuid.uuid4().hex[:24]}",
                    idempotency_key=idempotency_key,
                    provider_payment_id=provider_payment_id,
                    amount=amount.amount,
                    currency=amount.currency,
                    status=status,
                    failure_reason="declined_by_issuer"
                    if status == ProviderRefundStatus.FAILED
                    else "",
                    created_at=now,
                    settles_at=now + dt.timedelta(seconds=self.behaviour.settle_seconds)
                    if status == ProviderRefundStatus.PENDING
                    else None,
                )
        except IntegrityError:
            # A concurrent call with the same key won; like a provider, answer with its refund.
            row = SandboxProviderRefund.objects.get(idempotency_key=idempotency_key)
            return self._same_request(row, provider_payment_id, amount)
        if outcome == PredictedOutcome.TIMEOUT:
            raise ProviderTimeout("The sandbox provider did not answer in time.")
        return _to_provider_refund(row)

    def find_refund(
        self, *, provider_payment_id: str, idempotency_key: str
    ) -> ProviderRefund | None:
        row = self._settled(
            SandboxProviderRefund.objects.filter(
                idempotency_key=idempotency_key, provider_payment_id=provider_payment_id
            ).first()
        )
        return None if row is None else _to_provider_refund(row)

    def list_refunds(self, *, since: dt.datetime, until: dt.datetime) -> list[ProviderRefund]:
        rows = SandboxProviderRefund.objects.filter(created_at__gte=since, created_at__lt=until)
        return [
            _to_provider_refund(self._settle_due(row)) for row in rows.order_by("created_at", "id")
        ]

    @staticmethod
    def _same_request(
        row: SandboxProviderRefund, provider_payment_id: str, amount: Money
    ) -> ProviderRefund:
        if (row.provider_payment_id, row.amount, row.currency) != (
            provider_payment_id,
            amount.amount,
            amount.currency,
        ):
            raise ProviderError("Idempotency key reused with different refund parameters.")
        return _to_provider_refund(row)

    @classmethod
    def _settled(cls, row: SandboxProviderRefund | None) -> SandboxProviderRefund | None:
        return None if row is None else cls._settle_due(row)

    @staticmethod
    def _settle_due(row: SandboxProviderRefund) -> SandboxProviderRefund:
        """Apply delayed settlement lazily: a pending refund past its time has succeeded."""
        if (
            row.status == ProviderRefundStatus.PENDING
            and row.settles_at is not None
            and row.settles_at <= timezone.now()
        ):
            SandboxProviderRefund.objects.filter(
                pk=row.pk, status=ProviderRefundStatus.PENDING
            ).update(status=ProviderRefundStatus.SUCCEEDED)
            row.status = ProviderRefundStatus.SUCCEEDED
        return row
