"""Stripe, through the official `stripe` package. Used only when PAYMENTS_MODE=live and
STRIPE_API_KEY is set (see payments_sandbox.modes); STRIPE_API_BASE points it elsewhere (the
tests use a fake Stripe on 127.0.0.1).

Amounts: Stripe takes the same minor units as ISO 4217 for the currencies we support, with
Stripe's own caveats for three-decimal currencies (the last digit must be 0).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import stripe

from payments_sandbox.adapters.base import (
    Prediction,
    ProviderError,
    ProviderRefund,
    ProviderTimeout,
)
from payments_sandbox.domain import Money, normalize_currency
from payments_sandbox.models import PredictedOutcome, ProviderRefundStatus

METADATA_KEY = "backoffice_idempotency_key"

_STATUS = {
    "succeeded": ProviderRefundStatus.SUCCEEDED,
    "pending": ProviderRefundStatus.PENDING,
    "requires_action": ProviderRefundStatus.PENDING,
    "failed": ProviderRefundStatus.FAILED,
    "canceled": ProviderRefundStatus.FAILED,
}


def _plain(obj: Any) -> dict[str, Any]:
    """Stripe objects are not dicts (stripe >= 15); read them as plain data."""
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)


def _to_provider_refund(obj: Any, fallback_key: str = "") -> ProviderRefund:
    obj = _plain(obj)
    metadata = obj.get("metadata") or {}
    created = obj.get("created")
    return ProviderRefund(
        provider_refund_id=obj["id"],
        idempotency_key=metadata.get(METADATA_KEY, fallback_key),
        provider_payment_id=obj.get("payment_intent") or obj.get("charge") or "",
        amount=Money(int(obj["amount"]), normalize_currency(obj["currency"])),
        status=_STATUS.get(obj.get("status", ""), ProviderRefundStatus.PENDING),
        failure_reason=obj.get("failure_reason") or "",
        created_at=dt.datetime.fromtimestamp(created, tz=dt.UTC) if created else None,
    )


class StripeAdapter:
    mode = "live"

    def __init__(self, *, api_key: str, api_base: str = "") -> None:
        if not api_key:
            raise ValueError("StripeAdapter needs an API key.")
        self._client = stripe.StripeClient(
            api_key,
            base_addresses={"api": api_base} if api_base else None,
            max_network_retries=0,  # retries are Celery's job, with the same idempotency key
        )

    def rehearse_refund(self, *, provider_payment_id: str, amount: Money) -> Prediction:
        try:
            intent = _plain(self._client.v1.payment_intents.retrieve(provider_payment_id))
        except stripe.APIConnectionError as exc:
            raise ProviderTimeout(str(exc)) from exc
        except stripe.StripeError as exc:
            return Prediction(PredictedOutcome.DECLINE, f"Stripe: {exc.user_message or exc}")
        if intent.get("status") != "succeeded":
            return Prediction(PredictedOutcome.DECLINE, "Stripe: the payment is not captured.")
        if str(intent.get("currency", "")).upper() != amount.currency:
            return Prediction(PredictedOutcome.DECLINE, "Stripe: currency differs.")
        return Prediction(PredictedOutcome.SUCCEED, "Stripe: the payment can be refunded.")

    def create_refund(
        self, *, provider_payment_id: str, amount: Money, idempotency_key: str
    ) -> ProviderRefund:
        try:
            refund = self._client.v1.refunds.create(
                params={
                    "payment_intent": provider_payment_id,
                    "amount": amount.amount,
                    "metadata": {METADATA_KEY: idempotency_key},
                },
                options={"idempotency_key": idempotency_key},
            )
        except (stripe.APIConnectionError, stripe.RateLimitError) as exc:
            raise ProviderTimeout(str(exc)) from exc
        except stripe.InvalidRequestError as exc:
            # Stripe refused the refund itself (e.g. more than the charge): a final answer.
            return ProviderRefund(
                provider_refund_id="",
                idempotency_key=idempotency_key,
                provider_payment_id=provider_payment_id,
                amount=amount,
                status=ProviderRefundStatus.FAILED,
                failure_reason=(exc.user_message or str(exc))[:200],
            )
        except stripe.StripeError as exc:
            raise ProviderError(str(exc)) from exc
        return _to_provider_refund(refund, idempotency_key)

    def find_refund(
        self, *, provider_payment_id: str, idempotency_key: str
    ) -> ProviderRefund | None:
        try:
            page = self._client.v1.refunds.list(
                params={"payment_intent": provider_payment_id, "limit": 100}
            )
            for refund in page.auto_paging_iter():
                if (_plain(refund).get("metadata") or {}).get(METADATA_KEY) == idempotency_key:
                    return _to_provider_refund(refund)
        except stripe.APIConnectionError as exc:
            raise ProviderTimeout(str(exc)) from exc
        except stripe.StripeError as exc:
            raise ProviderError(str(exc)) from exc
        return None

    def list_refunds(self, *, since: dt.datetime, until: dt.datetime) -> list[ProviderRefund]:
        try:
            page = self._client.v1.refunds.list(
                params={
                    "created": {"gte": int(since.timestamp()), "lt": int(until.timestamp())},
                    "limit": 100,
                }
            )
            return [_to_provider_refund(refund) for refund in page.auto_paging_iter()]
        except stripe.APIConnectionError as exc:
            raise ProviderTimeout(str(exc)) from exc
        except stripe.StripeError as exc:
            raise ProviderError(str(exc)) from exc
