"""The Idempotency-Key protocol, against a small write endpoint defined here whose side effect
is one audit event per execution (so "exactly once" is a row count)."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections import Counter
from typing import Any

import pytest
from django.conf import settings
from django.urls import path
from django.utils import timezone
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice import tasks
from backoffice.errors import Unprocessable
from backoffice.idempotency import idempotent
from backoffice.idempotency_records import IN_FLIGHT_STALE_SECONDS
from backoffice.models import IdempotencyRecord, IdempotencyState
from identity import roles
from identity.audit import audit_record
from identity.models import AuditEvent
from tests.conftest import make_service_token, token_client
from tests.payments_sandbox.concurrency import require_real_connections, run_concurrently

URL = "/api/v1/idem-test/"
SIDE_EFFECT = "test.side_effect"


class _Input(serializers.Serializer):
    mode = serializers.ChoiceField(["ok", "slow", "unavailable", "crash", "refuse"])
    note = serializers.CharField(required=False, default="")


class _WriteView(APIView):
    @idempotent(scope="test")
    def post(self, request: Any) -> Response:
        data = _Input(data=request.data)
        data.is_valid(raise_exception=True)
        mode = data.validated_data["mode"]
        if mode == "refuse":
            raise Unprocessable("Refused on purpose.", code="refused")
        if mode == "crash":
            raise RuntimeError("worker blew up")
        if mode == "unavailable":
            return Response({"error": {"code": "unavailable", "message": "later"}}, status=503)
        if mode == "slow":
            # Hold the key in flight long enough for every concurrent duplicate to arrive.
            time.sleep(0.3)
        event = audit_record(actor=request.user, action=SIDE_EFFECT, target_type="test")
        return Response({"seq": event.seq, "note": data.validated_data["note"]}, status=201)


urlpatterns = [path("api/v1/idem-test/", _WriteView.as_view())]

pytestmark = pytest.mark.urls(__name__)


def side_effects() -> int:
    return AuditEvent.objects.filter(action=SIDE_EFFECT).count()


def post(client: Any, body: dict[str, Any] | str, key: str | None = "key-1") -> Any:
    headers = {} if key is None else {"Idempotency-Key": key}
    payload = body if isinstance(body, str) else json.dumps(body)
    return client.post(URL, payload, content_type="application/json", headers=headers)


@pytest.fixture
def client(db: None) -> Any:
    _, raw = make_service_token(["test"])
    return token_client(raw)


def test_it_refuses_a_write_without_an_idempotency_key(client: Any) -> None:
    response = post(client, {"mode": "ok"}, key=None)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "idempotency_key_missing"
    assert side_effects() == 0


@pytest.mark.parametrize("key", ["x" * 256, "tab\there", "nul\x00", "é-accent"])
def test_it_refuses_an_invalid_idempotency_key(client: Any, key: str) -> None:
    headers = {"HTTP_IDEMPOTENCY_KEY": key}
    response = client.post(URL, {"mode": "ok"}, format="json", **headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "idempotency_key_invalid"
    assert side_effects() == 0


def test_it_accepts_a_255_character_key(client: Any) -> None:
    assert post(client, {"mode": "ok"}, key="k" * 255).status_code == 201


def test_a_replay_returns_the_original_response_without_running_again(client: Any) -> None:
    first = post(client, {"mode": "ok", "note": "hello"})
    second = post(client, {"mode": "ok", "note": "hello"})
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert side_effects() == 1


def test_a_replay_matches_regardless_of_json_key_order_and_whitespace(client: Any) -> None:
    post(client, '{"mode": "ok", "note": "x"}')
    replay = post(client, '{ "note" : "x",\n "mode":"ok" }')
    assert replay.status_code == 201
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert side_effects() == 1


def test_the_same_key_with_a_different_body_is_unprocessable(client: Any) -> None:
    post(client, {"mode": "ok", "note": "a"})
    response = post(client, {"mode": "ok", "note": "b"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "idempotency_key_reused"
    assert side_effects() == 1


def test_keys_are_per_principal(client: Any) -> None:
    _, other_raw = make_service_token(["test"], username="other-runtime")
    post(client, {"mode": "ok"})
    other = post(token_client(other_raw), {"mode": "ok"})
    assert other.status_code == 201
    assert "Idempotent-Replayed" not in other.headers
    assert side_effects() == 2


def test_a_duplicate_while_the_first_is_in_flight_gets_409(client: Any) -> None:
    post(client, {"mode": "ok"})
    IdempotencyRecord.objects.update(state=IdempotencyState.IN_FLIGHT)
    response = post(client, {"mode": "ok"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_in_flight"
    assert side_effects() == 1


def test_a_stale_in_flight_record_is_taken_over_by_a_retry(client: Any) -> None:
    post(client, {"mode": "ok"})
    # As if the first request died mid-way: its transaction rolled back, the record stayed.
    long_ago = timezone.now() - dt.timedelta(seconds=IN_FLIGHT_STALE_SECONDS + 1)
    IdempotencyRecord.objects.update(state=IdempotencyState.IN_FLIGHT, created_at=long_ago)
    response = post(client, {"mode": "ok"})
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response.headers
    assert IdempotencyRecord.objects.get().state == IdempotencyState.COMPLETED


def test_a_server_error_releases_the_key_for_a_retry(client: Any) -> None:
    assert post(client, {"mode": "unavailable"}, key="k").status_code == 503
    assert not IdempotencyRecord.objects.exists()
    # The client retries the identical request with the same key after the outage.
    assert post(client, {"mode": "unavailable"}, key="k").status_code == 503
    assert not IdempotencyRecord.objects.exists()


def test_an_exception_releases_the_key_and_rolls_back(client: Any) -> None:
    client.raise_request_exception = False
    response = post(client, {"mode": "crash"})
    assert response.status_code == 500
    assert not IdempotencyRecord.objects.exists()
    assert side_effects() == 0


def test_a_definitive_refusal_is_stored_and_replayed(client: Any) -> None:
    first = post(client, {"mode": "refuse"})
    second = post(client, {"mode": "refuse"})
    assert first.status_code == second.status_code == 422
    assert (
        second.json()
        == first.json()
        == {"error": {"code": "refused", "message": "Refused on purpose."}}
    )
    assert second.headers["Idempotent-Replayed"] == "true"


def test_an_invalid_body_is_refused_in_the_project_error_shape(client: Any) -> None:
    response = post(client, {"mode": "nonsense"})
    assert response.status_code == 400
    body = response.json()["error"]
    assert body["code"] == "validation_failed"
    assert "mode" in body["fields"]


def test_records_expire_after_the_configured_ttl(client: Any, settings: Any) -> None:
    settings.IDEMPOTENCY_KEY_TTL_SECONDS = 60
    post(client, {"mode": "ok"})
    record = IdempotencyRecord.objects.get()
    assert record.expires_at - record.created_at == dt.timedelta(seconds=60)
    IdempotencyRecord.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    again = post(client, {"mode": "ok"})
    assert "Idempotent-Replayed" not in again.headers
    assert side_effects() == 2


def test_the_purge_task_deletes_only_expired_records(client: Any) -> None:
    post(client, {"mode": "ok"}, key="old")
    post(client, {"mode": "ok"}, key="fresh")
    IdempotencyRecord.objects.filter(key="old").update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    assert tasks.idempotency_purge.delay().get() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    assert AuditEvent.objects.filter(action="idempotency.purge").count() == 1


def test_the_purge_is_scheduled_with_celery_beat() -> None:
    tasks_scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "backoffice.tasks.idempotency_purge" in tasks_scheduled


@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_requests_with_one_key_run_exactly_once() -> None:
    require_real_connections()
    roles.sync_roles()
    _, raw = make_service_token(["test"])

    def request(_: int) -> Any:
        return post(token_client(raw), {"mode": "slow"}, key="same-key")

    responses = run_concurrently(50, request)

    assert not [r for r in responses if isinstance(r, BaseException)]
    counts = Counter(r.status_code for r in responses)
    assert side_effects() == 1
    assert set(counts) <= {201, 409}, counts
    assert counts[201] >= 1
    # Everyone who got a 201 got the one original result (the first run or its replay).
    bodies = [r.json() for r in responses if r.status_code == 201]
    assert all(body == bodies[0] for body in bodies)
