"""Executing approved refunds at the provider: outcomes, retries with the same key, and
recovery after a worker died between the provider call and recording its result."""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

import pytest
from django.utils import timezone

from identity.models import Operator
from payments_sandbox.adapters import ProviderTimeout, SandboxAdapter
from payments_sandbox.models import (
    Payment,
    PaymentStatus,
    ProviderRefundStatus,
    Refund,
    RefundStatus,
    SandboxProviderRefund,
)
from payments_sandbox.services import (
    refund_approve,
    refund_execute,
    refund_mark_processing,
    refund_recover_stuck,
    refund_request,
)


def approved(alice: Operator, bob: Operator, payment: Payment, amount: str, capture: Any) -> Refund:
    refund = refund_request(actor=alice, payment_id=payment.pk, amount=amount, reason="r")
    with capture(execute=False):
        return refund_approve(actor=bob, refund_id=refund.pk)


@pytest.fixture
def capture(django_capture_on_commit_callbacks: Any) -> Any:
    return django_capture_on_commit_callbacks


def test_approval_hands_the_refund_to_the_executor_after_commit(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    sandbox()
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="20.00", reason="r")
    with capture(execute=True):
        refund_approve(actor=bob, refund_id=refund.pk)
        refund.refresh_from_db()
        assert refund.status == RefundStatus.APPROVED  # nothing moves before the commit
    refund.refresh_from_db()
    payment.refresh_from_db()
    assert refund.status == RefundStatus.SUCCEEDED
    assert refund.provider_refund_id.startswith("sre_")
    assert payment.refunded_amount == 2000
    assert payment.status == PaymentStatus.PARTIALLY_REFUNDED


def test_a_full_refund_marks_the_payment_refunded(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    adapter = sandbox()
    refund = approved(alice, bob, payment, "50.00", capture)
    refund_execute(refund_id=refund.pk, adapter=adapter)
    payment.refresh_from_db()
    assert payment.status == PaymentStatus.REFUNDED
    assert payment.refunded_amount == payment.captured_amount


def test_a_declined_refund_fails_and_frees_its_amount(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    adapter = sandbox()
    refund = approved(alice, bob, payment, "10.13", capture)
    refund = refund_execute(refund_id=refund.pk, adapter=adapter)
    assert refund.status == RefundStatus.FAILED
    assert refund.failure_reason == "declined_by_issuer"
    payment.refresh_from_db()
    assert payment.refunded_amount == 0
    # The declined amount no longer counts as pending.
    refund_request(actor=alice, payment_id=payment.pk, amount="50.00", reason="again")


def test_a_timeout_is_retried_with_the_same_key_and_refunds_once(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    adapter = sandbox()
    refund = approved(alice, bob, payment, "10.08", capture)
    with pytest.raises(ProviderTimeout):
        refund_execute(refund_id=refund.pk, adapter=adapter)
    refund.refresh_from_db()
    assert refund.status == RefundStatus.PROCESSING
    # The Celery retry: same refund, same key.
    refund = refund_execute(refund_id=refund.pk, adapter=adapter)
    assert refund.status == RefundStatus.SUCCEEDED
    assert SandboxProviderRefund.objects.count() == 1


def test_the_celery_task_asks_for_a_retry_on_timeout_and_the_retry_settles_once(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    from celery.exceptions import Retry

    from payments_sandbox import tasks

    sandbox()
    refund = approved(alice, bob, payment, "10.08", capture)
    assert cast(Any, tasks.refund_execute).autoretry_for == (ProviderTimeout.__mro__[1],)
    # Eager Celery surfaces the scheduled retry as an exception instead of sleeping.
    with pytest.raises(Retry):
        tasks.refund_execute.delay(refund.pk)
    assert tasks.refund_execute.delay(refund.pk).get() == RefundStatus.SUCCEEDED
    assert SandboxProviderRefund.objects.count() == 1


def test_delayed_settlement_stays_processing_until_recovery_sees_it_settled(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    adapter = sandbox(settle_seconds=60)
    refund = approved(alice, bob, payment, "10.07", capture)
    refund = refund_execute(refund_id=refund.pk, adapter=adapter)
    assert refund.status == RefundStatus.PROCESSING
    assert refund.provider_status == ProviderRefundStatus.PENDING
    assert refund_recover_stuck(older_than_seconds=0, adapter=adapter)["still_pending"] == 1
    SandboxProviderRefund.objects.update(settles_at=timezone.now() - dt.timedelta(seconds=1))
    assert refund_recover_stuck(older_than_seconds=0, adapter=adapter)["settled"] == 1
    refund.refresh_from_db()
    assert refund.status == RefundStatus.SUCCEEDED


class _DyingWorker(SandboxAdapter):
    """The provider makes the refund, then the worker dies before recording the answer."""

    def create_refund(self, **kwargs: Any) -> Any:
        super().create_refund(**kwargs)
        raise SystemExit("worker killed")


def test_recovery_after_a_worker_died_settles_without_a_second_provider_refund(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    adapter = sandbox()
    refund = approved(alice, bob, payment, "20.00", capture)
    with pytest.raises(SystemExit):
        refund_execute(refund_id=refund.pk, adapter=_DyingWorker())
    refund.refresh_from_db()
    assert refund.status == RefundStatus.PROCESSING
    assert refund.provider_refund_id == ""
    assert SandboxProviderRefund.objects.count() == 1

    # Not yet stuck for long enough: recovery leaves a possibly live worker alone.
    assert refund_recover_stuck(adapter=adapter)["settled"] == 0
    Refund.objects.filter(pk=refund.pk).update(
        processing_started_at=timezone.now() - dt.timedelta(minutes=10)
    )
    counts = refund_recover_stuck(adapter=adapter)
    assert counts["settled"] == 1
    refund.refresh_from_db()
    payment.refresh_from_db()
    assert refund.status == RefundStatus.SUCCEEDED
    assert SandboxProviderRefund.objects.count() == 1
    assert refund.provider_refund_id == SandboxProviderRefund.objects.get().provider_refund_id
    assert payment.refunded_amount == 2000
    # A late Celery retry of the dead task changes nothing either.
    refund_execute(refund_id=refund.pk, adapter=adapter)
    assert SandboxProviderRefund.objects.count() == 1
    payment.refresh_from_db()
    assert payment.refunded_amount == 2000


def test_recovery_sends_a_refund_whose_worker_died_before_the_provider_call(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    adapter = sandbox()
    refund = approved(alice, bob, payment, "20.00", capture)
    refund_mark_processing(refund_id=refund.pk)  # then the worker died
    Refund.objects.filter(pk=refund.pk).update(
        processing_started_at=timezone.now() - dt.timedelta(minutes=10)
    )
    assert refund_recover_stuck(adapter=adapter)["settled"] == 1
    refund.refresh_from_db()
    assert refund.status == RefundStatus.SUCCEEDED
    assert SandboxProviderRefund.objects.count() == 1


def test_recovery_redispatches_an_approved_refund_whose_task_was_lost(
    alice: Operator, bob: Operator, payment: Payment, sandbox: Any, capture: Any
) -> None:
    sandbox()
    refund = approved(alice, bob, payment, "5.00", capture)
    Refund.objects.filter(pk=refund.pk).update(decided_at=timezone.now() - dt.timedelta(minutes=10))
    assert refund_recover_stuck()["redispatched"] == 1
    refund.refresh_from_db()
    assert refund.status == RefundStatus.SUCCEEDED


def test_the_provider_refuses_a_reused_key_with_other_parameters(
    payment: Payment, sandbox: Any
) -> None:
    from payments_sandbox.adapters import ProviderError
    from payments_sandbox.domain import Money

    adapter = sandbox()
    adapter.create_refund(
        provider_payment_id=payment.provider_payment_id,
        amount=Money(100, "USD"),
        idempotency_key="k",
    )
    with pytest.raises(ProviderError):
        adapter.create_refund(
            provider_payment_id=payment.provider_payment_id,
            amount=Money(200, "USD"),
            idempotency_key="k",
        )
