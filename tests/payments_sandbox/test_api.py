"""The refunds API: the persona table for every endpoint, step-up, four eyes, idempotency
and the shape of amounts."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import pytest

from identity.models import Operator
from payments_sandbox.models import Payment, Refund, RefundStatus
from payments_sandbox.services import refund_request
from tests.conftest import make_service_token, token_client, verified_client

API = "/api/v1"
_keys = itertools.count()

PERSONAS = ["alice", "bob", "sam", "audrey", "olga", "service"]

# endpoint -> expected status for alice (agent), bob (approver), sam (supervisor),
# audrey (auditor), olga (no role), service (the AI agent's token with its scopes).
TABLE: dict[str, tuple[int, int, int, int, int, int]] = {
    "payments_list": (200, 200, 200, 200, 403, 200),
    "payment_detail": (200, 200, 200, 200, 403, 200),
    "refunds_list": (200, 200, 200, 200, 403, 200),
    "refund_detail": (200, 200, 200, 200, 403, 200),
    "refund_request": (201, 403, 201, 403, 403, 201),
    "refund_preview": (200, 403, 200, 403, 403, 200),
    "refund_approve": (403, 200, 403, 403, 403, 403),
    "refund_reject": (403, 200, 403, 403, 403, 403),
    "refund_cancel": (200, 403, 200, 403, 403, 403),
    "reconciliation_list": (403, 200, 200, 200, 403, 403),
    "reconciliation_run": (403, 403, 201, 403, 403, 403),
}


def call(client: Any, endpoint: str, payment: Payment, refund: Refund) -> Any:
    headers = {"Idempotency-Key": f"key-{next(_keys)}"}
    today = "2026-01-01"
    requests = {
        "payments_list": ("get", f"{API}/payments", None),
        "payment_detail": ("get", f"{API}/payments/{payment.pk}", None),
        "refunds_list": ("get", f"{API}/refunds", None),
        "refund_detail": ("get", f"{API}/refunds/{refund.pk}", None),
        "refund_request": (
            "post",
            f"{API}/refunds/request",
            {"payment_id": payment.pk, "amount": "1.00", "reason": "Late delivery"},
        ),
        "refund_preview": (
            "post",
            f"{API}/refunds/preview",
            {"payment_id": payment.pk, "amount": "1.00"},
        ),
        "refund_approve": ("post", f"{API}/refunds/{refund.pk}/approve", {}),
        "refund_reject": ("post", f"{API}/refunds/{refund.pk}/reject", {"reason": "No"}),
        "refund_cancel": ("post", f"{API}/refunds/{refund.pk}/cancel", {}),
        "reconciliation_list": ("get", f"{API}/reconciliation/reports", None),
        "reconciliation_run": (
            "post",
            f"{API}/reconciliation/run",
            {"date_from": today, "date_to": today},
        ),
    }
    method, url, body = requests[endpoint]
    if method == "get":
        return client.get(url)
    return client.post(url, body, format="json", headers=headers)


@pytest.fixture
def clients(
    alice: Operator, bob: Operator, sam: Operator, audrey: Operator, olga: Operator
) -> dict[str, Any]:
    from payments_sandbox.access import SCOPES

    _, raw = make_service_token(list(SCOPES))
    out = {p.username: verified_client(p, api=True) for p in (alice, bob, sam, audrey, olga)}
    out["service"] = token_client(raw)
    return out


@pytest.mark.parametrize(("endpoint", "persona"), [(e, p) for e in TABLE for p in PERSONAS])
def test_the_persona_table(
    endpoint: str,
    persona: str,
    clients: dict[str, Any],
    alice: Operator,
    payment: Payment,
    django_capture_on_commit_callbacks: Any,
) -> None:
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="2.00", reason="r")
    expected = TABLE[endpoint][PERSONAS.index(persona)]
    with django_capture_on_commit_callbacks(execute=False):
        response = call(clients[persona], endpoint, payment, refund)
    assert response.status_code == expected, response.content
    if expected >= 400:
        assert "error" in response.json()


def test_a_token_without_the_scope_cannot_request(payment: Payment) -> None:
    _, raw = make_service_token(["refunds:read"])
    response = token_client(raw).post(
        f"{API}/refunds/request",
        {"payment_id": payment.pk, "amount": "1.00", "reason": "r"},
        format="json",
        headers={"Idempotency-Key": "k"},
    )
    assert response.status_code == 403
    assert not Refund.objects.exists()


def test_approving_needs_a_fresh_step_up(alice: Operator, bob: Operator, payment: Payment) -> None:
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="2.00", reason="r")
    client = verified_client(bob, api=True, stepped_up=False)
    response = client.post(
        f"{API}/refunds/{refund.pk}/approve", {}, format="json", headers={"Idempotency-Key": "a"}
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "step_up_required"
    refund.refresh_from_db()
    assert refund.status == RefundStatus.PENDING_APPROVAL


def test_four_eyes_through_the_api(make_operator: Any, payment: Payment) -> None:
    carol = make_operator("carol", ["agent", "approver"])
    client = verified_client(carol, api=True)
    created = client.post(
        f"{API}/refunds/request",
        {"payment_id": payment.pk, "amount": "3.00", "reason": "r"},
        format="json",
        headers={"Idempotency-Key": "req"},
    )
    assert created.status_code == 201
    response = client.post(
        f"{API}/refunds/{created.json()['id']}/approve",
        {},
        format="json",
        headers={"Idempotency-Key": "appr"},
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "four_eyes"


def test_the_agent_requests_and_a_replay_returns_the_same_refund(
    agent_runtime: tuple[Operator, Any], payment: Payment
) -> None:
    _, client = agent_runtime
    body = {"payment_id": payment.pk, "amount": "12.34", "reason": "Customer asked"}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = client.post(f"{API}/refunds/request", body, format="json", headers=key)
    second = client.post(f"{API}/refunds/request", body, format="json", headers=key)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert Refund.objects.count() == 1
    data = first.json()
    assert data["amount"] == "12.34" and data["currency"] == "USD"
    assert data["status"] == "pending_approval"
    assert data["rehearsal"] == {
        "predicted_outcome": "succeed",
        "note": data["rehearsal"]["note"],
        "refundable_before": "50.00",
        "refundable_after": "37.66",
        "refunded_after": "12.34",
    }


def test_a_write_without_a_key_is_refused(
    agent_runtime: tuple[Operator, Any], payment: Payment
) -> None:
    _, client = agent_runtime
    response = client.post(
        f"{API}/refunds/request",
        {"payment_id": payment.pk, "amount": "1.00", "reason": "r"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "idempotency_key_missing"


def test_a_json_number_amount_is_refused(
    agent_runtime: tuple[Operator, Any], payment: Payment
) -> None:
    _, client = agent_runtime
    response = client.post(
        f"{API}/refunds/request",
        {"payment_id": payment.pk, "amount": 12.34, "reason": "r"},
        format="json",
        headers={"Idempotency-Key": "n"},
    )
    assert response.status_code == 400
    assert "amount" in response.json()["error"]["fields"]


def test_an_over_refund_is_explained_to_the_agent(
    agent_runtime: tuple[Operator, Any], payment: Payment
) -> None:
    _, client = agent_runtime
    response = client.post(
        f"{API}/refunds/request",
        {"payment_id": payment.pk, "amount": "80.00", "reason": "r"},
        format="json",
        headers={"Idempotency-Key": "big"},
    )
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "exceeds_refundable"
    assert error["message"].startswith("Refund of 80.00 USD exceeds the refundable 50.00 USD")


def test_the_preview_explains_and_writes_nothing(
    agent_runtime: tuple[Operator, Any], payment: Payment
) -> None:
    _, client = agent_runtime
    response = client.post(
        f"{API}/refunds/preview", {"payment_id": payment.pk, "amount": "10.13"}, format="json"
    )
    assert response.status_code == 200
    data = response.json()
    assert data["allowed"] is True
    assert data["predicted_outcome"] == "decline"
    assert data["refundable_after"] == "39.87"
    assert not Refund.objects.exists()
