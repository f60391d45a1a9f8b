"""Fault injection: a real Celery worker killed with kill -9 in the middle of a refund.

An approved refund goes to a real worker (Redis broker, the test's PostgreSQL database) whose
execution stops at a chosen point and says so (tests/security/refund_celery_worker.py). The
test then kills the worker's whole process group with SIGKILL, checks what the dead worker
left behind, and starts a fresh worker that finds the unacknowledged message once the
broker's visibility timeout has passed (shortened for that worker only). docs/payments.md
and docs/operations.md promise:

- exactly one provider-side refund, whatever the kill interrupted (the refund's own
  idempotency key towards the provider);
- the refund ends `succeeded` and the payment is refunded once;
- `payments reconcile` finds nothing to report;
- the recovery job and the redelivered message both run (two worker paths to the same
  refund, in whichever order the fresh worker takes them): whichever settles the refund, the
  other finds it settled and adds nothing.

Runs in the Celery leg of .ci/run (GOLIVE_CELERY_WORKER=1, PostgreSQL, Redis).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any

import pytest
from celery.result import AsyncResult
from django.core.management import call_command
from django.utils import timezone

from backoffice.celery import app
from identity.models import Operator
from payments_sandbox import tasks
from payments_sandbox.domain import Money
from payments_sandbox.models import (
    Payment,
    PaymentStatus,
    Refund,
    RefundStatus,
    SandboxProviderRefund,
)
from payments_sandbox.services import payment_capture, refund_approve, refund_request
from tests.celery_workers import kill_9, spawn_worker, stop, wait_until_up

PROGRAM = "tests.security.refund_celery_worker"
FRESH_VISIBILITY_SECONDS = 2


def _program(stop_at: str, argument: str) -> list[str]:
    from sys import executable

    return [executable, "-m", PROGRAM, stop_at, argument]


def _wait(condition: Any, what: str, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {limit} s"
        time.sleep(0.05)


def _approved_refund(
    alice: Operator, bob: Operator, monkeypatch: Any
) -> tuple[Payment, Refund, AsyncResult]:
    payment = payment_capture(
        actor=None, amount=Money.parse("50.00", "USD"), customer_email="c@example.test"
    )
    sent: list[AsyncResult] = []
    delay = tasks.refund_execute.delay
    with monkeypatch.context() as patch:
        # Keep hold of the message's result: the redelivered task reports to the same id.
        patch.setattr(
            tasks.refund_execute, "delay", lambda refund_id: sent.append(delay(refund_id))
        )
        refund = refund_request(actor=alice, payment_id=payment.pk, amount="20.00", reason="dented")
        refund_approve(actor=bob, refund_id=refund.pk)  # hands the refund over on commit
    assert len(sent) == 1
    return payment, refund, sent[0]


def _reconciliation_lines() -> list[str]:
    from io import StringIO

    out = StringIO()
    today = timezone.now().date().isoformat()
    call_command("payments", "reconcile", "--from", today, "--to", today, stdout=out)
    return out.getvalue().splitlines()


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("stop_at", ["in-provider-call", "before-commit"])
def test_a_worker_killed_mid_refund_leaves_exactly_one_provider_refund(
    live_celery: None,
    alice: Operator,
    bob: Operator,
    tmp_path: Path,
    monkeypatch: Any,
    stop_at: str,
) -> None:
    queue = f"refund-kill-{os.getpid()}"
    saved_routes = app.conf.task_routes
    app.conf.task_routes = {
        "payments_sandbox.refund_execute": {"queue": queue},
        "payments_sandbox.refund_recover_stuck": {"queue": queue},
    }
    marker = tmp_path / "reached"
    doomed = spawn_worker([queue], "refund-doomed", program=_program(stop_at, str(marker)))
    fresh = None
    try:
        wait_until_up(doomed, "refund-doomed")
        payment, refund, sent = _approved_refund(alice, bob, monkeypatch)
        _wait(marker.exists, f"the worker reaching {stop_at}")
        assert marker.read_text().startswith(stop_at)
        kill_9(doomed)
        assert doomed.returncode < 0  # killed by the signal, not ended by itself

        # The kill landed where it was meant to: the refund is processing, not settled.
        refund.refresh_from_db()
        assert refund.status == RefundStatus.PROCESSING
        assert refund.provider_refund_id == ""
        provider = SandboxProviderRefund.objects.filter(
            idempotency_key=refund.provider_idempotency_key
        )
        # In the call, the provider has not refunded yet; before our commit, it has.
        assert provider.count() == (0 if stop_at == "in-provider-call" else 1)
        payment.refresh_from_db()
        assert payment.refunded_amount == 0  # the dead worker's UPDATEs were rolled back

        # The recovery job runs meanwhile (the refund looks stuck by now), on a worker...
        Refund.objects.filter(pk=refund.pk).update(
            processing_started_at=timezone.now() - dt.timedelta(minutes=10)
        )
        fresh = spawn_worker(
            [queue],
            "refund-fresh",
            program=_program("none", str(FRESH_VISIBILITY_SECONDS)),
        )
        wait_until_up(fresh, "refund-fresh")
        recovered = tasks.refund_recover_stuck.delay().get(timeout=120)
        assert recovered["errors"] == 0, recovered
        # ...and the message the killed worker held comes back from the broker and runs again.
        assert sent.get(timeout=120) == RefundStatus.SUCCEEDED

        refund.refresh_from_db()
        payment.refresh_from_db()
        rows = list(SandboxProviderRefund.objects.all())
        assert len(rows) == 1, "the provider refunded twice"
        assert rows[0].idempotency_key == refund.provider_idempotency_key
        assert refund.status == RefundStatus.SUCCEEDED
        assert refund.provider_refund_id == rows[0].provider_refund_id
        assert payment.refunded_amount == 2000
        assert payment.status == PaymentStatus.PARTIALLY_REFUNDED
        lines = _reconciliation_lines()
        assert lines and lines[0].endswith("1 compared, 0 mismatch(es)."), lines
    finally:
        app.conf.task_routes = saved_routes
        stop(doomed)
        if fresh is not None:
            stop(fresh)
