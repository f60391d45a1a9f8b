"""Races with real threads and real database connections (PostgreSQL in CI; a file SQLite
database also works; the in-memory SQLite test database cannot, see concurrency.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.db.models import Sum

from identity import roles
from payments_sandbox.domain import Money
from payments_sandbox.models import Refund
from payments_sandbox.services import payment_capture
from tests.conftest import make_service_token, token_client
from tests.payments_sandbox.concurrency import require_real_connections, run_concurrently

URL = "/api/v1/refunds/request"


def _setup(amount: str) -> tuple[int, str]:
    roles.sync_roles()
    payment = payment_capture(actor=None, amount=Money.parse(amount, "USD"))
    _, raw = make_service_token(["refunds:request"])
    return payment.pk, raw


@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_requests_with_one_key_create_exactly_one_refund() -> None:
    require_real_connections()
    payment_id, raw = _setup("500.00")
    body = {"payment_id": payment_id, "amount": "10.00", "reason": "duplicate clicks"}

    def send(_: int) -> Any:
        return token_client(raw).post(
            URL, body, format="json", headers={"Idempotency-Key": "one-key"}
        )

    responses = run_concurrently(50, send)
    assert not [r for r in responses if isinstance(r, BaseException)], responses
    statuses = Counter(r.status_code for r in responses)
    assert set(statuses) <= {201, 409}, statuses
    assert Refund.objects.count() == 1
    ids = {r.json()["id"] for r in responses if r.status_code == 201}
    assert ids == {Refund.objects.get().pk}


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_different_keys_cannot_over_refund() -> None:
    require_real_connections()
    payment_id, raw = _setup("100.00")
    body = {"payment_id": payment_id, "amount": "30.00", "reason": "racing"}

    def send(index: int) -> Any:
        return token_client(raw).post(
            URL, body, format="json", headers={"Idempotency-Key": f"key-{index}"}
        )

    responses = run_concurrently(20, send)
    assert not [r for r in responses if isinstance(r, BaseException)], responses
    statuses = Counter(r.status_code for r in responses)
    # 100.00 holds three refunds of 30.00; the row lock makes every other one see that.
    assert statuses == {201: 3, 422: 17}, statuses
    total = Refund.objects.aggregate(total=Sum("amount"))["total"]
    assert total == 9000
    refusals = [r.json()["error"]["code"] for r in responses if r.status_code == 422]
    assert set(refusals) == {"exceeds_refundable"}
