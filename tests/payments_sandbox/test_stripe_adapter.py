"""The live adapter against a fake Stripe on 127.0.0.1 (via STRIPE_API_BASE), and the mode
binding that keeps it out of sandbox processes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from identity.models import Operator
from payments_sandbox import adapters
from payments_sandbox.adapters import ProviderTimeout, SandboxAdapter
from payments_sandbox.adapters.stripe_live import StripeAdapter
from payments_sandbox.domain import Money
from payments_sandbox.models import Mode, Payment, RefundStatus
from payments_sandbox.services import refund_approve, refund_execute, refund_request
from tests.payments_sandbox import fake_stripe


@pytest.fixture
def stripe_server() -> Iterator[fake_stripe.FakeStripe]:
    with fake_stripe.running() as fake:
        fake.add_intent("pi_1", 5000)
        yield fake


@pytest.fixture
def stripe_adapter(stripe_server: fake_stripe.FakeStripe) -> StripeAdapter:
    return StripeAdapter(api_key="sk_test_fake", api_base=stripe_server.url)


def test_it_creates_a_refund_with_the_idempotency_key(
    stripe_adapter: StripeAdapter, stripe_server: fake_stripe.FakeStripe
) -> None:
    first = stripe_adapter.create_refund(
        provider_payment_id="pi_1", amount=Money(1234, "USD"), idempotency_key="refund-abc"
    )
    again = stripe_adapter.create_refund(
        provider_payment_id="pi_1", amount=Money(1234, "USD"), idempotency_key="refund-abc"
    )
    assert first.status == "succeeded"
    assert first.amount == Money(1234, "USD")
    assert again.provider_refund_id == first.provider_refund_id
    assert stripe_server.keys_seen == ["refund-abc", "refund-abc"]
    assert len(stripe_server.refunds) == 1


def test_a_refused_refund_is_a_final_failure(stripe_adapter: StripeAdapter) -> None:
    result = stripe_adapter.create_refund(
        provider_payment_id="pi_1", amount=Money(9999, "USD"), idempotency_key="too-much"
    )
    assert result.status == "failed"
    assert "greater than unrefunded" in result.failure_reason


def test_a_lost_answer_is_a_timeout_and_the_retry_finds_the_same_refund(
    stripe_adapter: StripeAdapter, stripe_server: fake_stripe.FakeStripe
) -> None:
    stripe_server.drop_next_answer = True
    with pytest.raises(ProviderTimeout):
        stripe_adapter.create_refund(
            provider_payment_id="pi_1", amount=Money(500, "USD"), idempotency_key="k-lost"
        )
    found = stripe_adapter.find_refund(provider_payment_id="pi_1", idempotency_key="k-lost")
    assert found is not None and found.amount == Money(500, "USD")
    retried = stripe_adapter.create_refund(
        provider_payment_id="pi_1", amount=Money(500, "USD"), idempotency_key="k-lost"
    )
    assert retried.provider_refund_id == found.provider_refund_id
    assert len(stripe_server.refunds) == 1


def test_it_lists_refunds_in_a_period(stripe_adapter: StripeAdapter) -> None:
    stripe_adapter.create_refund(
        provider_payment_id="pi_1", amount=Money(100, "USD"), idempotency_key="a"
    )
    now = timezone.now()
    listed = stripe_adapter.list_refunds(
        since=now - dt.timedelta(hours=1), until=now + dt.timedelta(hours=1)
    )
    assert [r.idempotency_key for r in listed] == ["a"]
    assert (
        stripe_adapter.list_refunds(
            since=now - dt.timedelta(days=2), until=now - dt.timedelta(days=1)
        )
        == []
    )


def test_the_rehearsal_reads_the_payment_intent(stripe_adapter: StripeAdapter) -> None:
    assert (
        stripe_adapter.rehearse_refund(provider_payment_id="pi_1", amount=Money(100, "USD")).outcome
        == "succeed"
    )
    assert (
        stripe_adapter.rehearse_refund(provider_payment_id="pi_1", amount=Money(100, "EUR")).outcome
        == "decline"
    )


def test_a_sandbox_process_never_builds_the_stripe_adapter(settings: Any) -> None:
    settings.PAYMENTS_MODE = "sandbox"
    settings.STRIPE_API_KEY = ""
    assert isinstance(adapters.get_adapter(), SandboxAdapter)


def test_a_live_process_refunds_through_stripe_end_to_end(
    settings: Any,
    stripe_server: fake_stripe.FakeStripe,
    alice: Operator,
    bob: Operator,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.PAYMENTS_MODE = "live"
    settings.STRIPE_API_KEY = "sk_test_fake"
    settings.STRIPE_API_BASE = stripe_server.url
    assert isinstance(adapters.get_adapter(), StripeAdapter)
    now = timezone.now()
    payment = Payment.objects.create(
        mode=Mode.LIVE,
        reference="PAY-LIVE",
        provider_payment_id="pi_1",
        currency="USD",
        captured_amount=5000,
        captured_at=now,
        updated_at=now,
    )
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="20.00", reason="r")
    assert refund.mode == Mode.LIVE
    with django_capture_on_commit_callbacks(execute=False):
        refund_approve(actor=bob, refund_id=refund.pk)
    refund = refund_execute(refund_id=refund.pk)
    assert refund.status == RefundStatus.SUCCEEDED
    assert refund.provider_refund_id == "re_1"
    assert stripe_server.keys_seen == [refund.provider_idempotency_key]
