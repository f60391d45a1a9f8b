"""Fault injection: a refund worker killed with SIGKILL in the middle of executing a refund.

A real process (tests/security/dying_refund_worker.py) executes an approved refund on the
test's database and is killed the moment the sandbox provider has made the refund, before
it records the provider's answer. docs/payments.md promises that a refund is sent to the
provider at most once, under one idempotency key, and that recovery settles a refund whose
worker died: the broker's redelivery (the same task run again) and the recovery job must
together leave exactly one provider refund, the refund succeeded, and the payment refunded
once.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from identity.models import Operator
from payments_sandbox import tasks
from payments_sandbox.adapters import SandboxAdapter
from payments_sandbox.domain import Money
from payments_sandbox.models import Refund, RefundStatus, SandboxProviderRefund
from payments_sandbox.services import (
    payment_capture,
    refund_approve,
    refund_execute,
    refund_recover_stuck,
    refund_request,
)

ROOT = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    host, port = s.get("HOST") or "127.0.0.1", s.get("PORT") or 5432
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@{host}:{port}/{s['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_a_refund_worker_killed_after_the_provider_call_refunds_exactly_once(
    alice: Operator, bob: Operator, tmp_path: Path, monkeypatch: Any
) -> None:
    payment = payment_capture(
        actor=None, amount=Money.parse("50.00", "USD"), customer_email="c@example.test"
    )
    queued: list[int] = []  # the broker: approval hands the refund over on commit
    monkeypatch.setattr(tasks.refund_execute, "delay", lambda refund_id: queued.append(refund_id))
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="20.00", reason="dented")
    refund_approve(actor=bob, refund_id=refund.pk)
    assert queued == [refund.pk]

    marker = tmp_path / "provider-called"
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SETTINGS_MODULE": "tests.settings",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.security.dying_refund_worker", str(refund.pk), str(marker)],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert worker.poll() is None, "the worker ended before the provider call"
            assert time.monotonic() < deadline, "the worker never reached the provider"
            time.sleep(0.05)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    assert worker.returncode == -signal.SIGKILL

    refund.refresh_from_db()
    assert refund.status == RefundStatus.PROCESSING  # what the dead worker left
    assert refund.provider_refund_id == ""
    assert SandboxProviderRefund.objects.count() == 1  # the provider did refund

    adapter = SandboxAdapter()
    # The broker redelivers the unacknowledged message: the same task runs again.
    refund_execute(refund_id=refund.pk, adapter=adapter)
    # And the recovery job runs later, once the refund has been stuck long enough.
    Refund.objects.filter(pk=refund.pk).update(
        processing_started_at=timezone.now() - dt.timedelta(minutes=10)
    )
    refund_recover_stuck(adapter=adapter)

    refund.refresh_from_db()
    payment.refresh_from_db()
    provider = list(SandboxProviderRefund.objects.all())
    assert len(provider) == 1, "the provider refunded twice"
    assert refund.status == RefundStatus.SUCCEEDED
    assert refund.provider_refund_id == provider[0].provider_refund_id
    assert payment.refunded_amount == 2000
