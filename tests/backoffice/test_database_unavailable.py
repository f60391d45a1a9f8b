"""A database that is unreachable for a moment (restart, failover, a dropped connection) is
answered 503 with Retry-After, in the API's JSON error shape, never a 500 with a traceback; a
bug that happens to be an OperationalError stays a 500. A write whose request lost the
database leaves its Idempotency-Key retryable: the retry takes the dead request's record over
on PostgreSQL (its row lock went with the connection), not after five minutes.

tests/faults/test_postgres_restart.py restarts a real PostgreSQL under load; these pin the
pieces down on both databases."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice import idempotency_records
from backoffice.error_views import RETRY_AFTER_SECONDS, database_unavailable
from backoffice.idempotency import idempotent
from backoffice.idempotency_records import IN_FLIGHT_LOCK_GRACE_SECONDS
from backoffice.models import IdempotencyRecord, IdempotencyState
from identity.audit import audit_record
from identity.models import AuditEvent, Operator
from tests.conftest import make_service_token, token_client, verified_client

SIDE_EFFECT = "test.side_effect"


def _connection_lost() -> OperationalError:
    """What Django raises when the server went away mid-statement: psycopg's error, without a
    SQLSTATE (no server answered), as the cause."""
    try:
        try:
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        except psycopg.OperationalError as cause:
            raise OperationalError("server closed the connection unexpectedly") from cause
    except OperationalError as exc:
        return exc


def _shutting_down() -> OperationalError:
    cause = psycopg.errors.AdminShutdown("terminating connection due to administrator command")
    exc = OperationalError(str(cause))
    exc.__cause__ = cause
    return exc


def _programming_slip() -> OperationalError:
    return OperationalError("no such table: idem_nothing")  # SQLite's word for a missing table


FAILURES = {"lost": _connection_lost, "shutdown": _shutting_down, "bug": _programming_slip}


class _ApiView(APIView):
    def get(self, request: Any, failure: str) -> Response:
        raise FAILURES[failure]()


# Whether the write view loses the database after its write (set by the tests).
LOSE_DATABASE = {"now": False}


class _WriteView(APIView):
    @idempotent(scope="test-db-unavailable")
    def post(self, request: Any) -> Response:
        event = audit_record(actor=request.user, action=SIDE_EFFECT, target_type="test")
        if LOSE_DATABASE["now"]:
            raise _connection_lost()
        return Response({"seq": event.seq}, status=201)


def _page(request: HttpRequest, failure: str) -> HttpResponse:
    raise FAILURES[failure]()


urlpatterns = [
    path("api/v1/db-test/<str:failure>", _ApiView.as_view()),
    path("api/v1/db-test-write/", _WriteView.as_view()),
    path("db-test/<str:failure>", _page),
]
handler500 = "backoffice.error_views.server_error"  # as backoffice.urls sets it

pytestmark = pytest.mark.urls(__name__)


def test_a_lost_or_restarting_database_is_unavailable_and_a_bug_is_not() -> None:
    assert database_unavailable(_connection_lost())
    assert database_unavailable(_shutting_down())
    assert not database_unavailable(_programming_slip())
    assert not database_unavailable(RuntimeError("boom"))
    assert not database_unavailable(None)


@pytest.fixture
def api(db: None) -> Any:
    _, raw = make_service_token(["test"])
    client = token_client(raw)
    client.raise_request_exception = False
    return client


@pytest.mark.parametrize("failure", ["lost", "shutdown"])
def test_the_api_answers_503_with_retry_after_in_the_json_error_shape(
    api: Any, failure: str
) -> None:
    response = api.get(f"/api/v1/db-test/{failure}")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == "database_unavailable"
    assert "Traceback" not in response.content.decode()


def test_a_page_answers_503_with_retry_after_and_no_traceback(alice: Operator) -> None:
    client = verified_client(alice)
    client.raise_request_exception = False
    response = client.get("/db-test/lost")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    text = response.content.decode()
    assert "The database is unavailable for a moment" in text
    assert "Traceback" not in text and "psycopg" not in text


def test_an_operational_error_that_is_a_bug_stays_a_500(api: Any) -> None:
    response = api.get("/api/v1/db-test/bug")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "server_error"
    assert "Retry-After" not in response


def _post(api: Any, body: dict[str, Any], key: str = "key-1") -> Any:
    return api.post(
        "/api/v1/db-test-write/",
        json.dumps(body),
        content_type="application/json",
        headers={"Idempotency-Key": key},
    )


def test_a_write_that_lost_the_database_answers_503_and_even_an_unreachable_release_does_not_hide_it(
    api: Any, monkeypatch: Any
) -> None:
    def release_unreachable(record: IdempotencyRecord) -> None:
        raise _connection_lost()

    monkeypatch.setattr(idempotency_records, "release", release_unreachable)
    monkeypatch.setitem(LOSE_DATABASE, "now", True)
    response = _post(api, {})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "database_unavailable"
    # The view's write rolled back; the record stayed behind, in flight, for a retry.
    assert not AuditEvent.objects.filter(action=SIDE_EFFECT).exists()
    assert IdempotencyRecord.objects.get().state == IdempotencyState.IN_FLIGHT


postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks tell a live request on PostgreSQL"
)


def _left_in_flight_by_a_dead_request(api: Any, monkeypatch: Any) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(idempotency_records, "release", lambda record: None)  # the database was gone
        patch.setitem(LOSE_DATABASE, "now", True)
        assert _post(api, {}).status_code == 503
    # The request's transaction (and with it its row lock) is gone, its write rolled back;
    # its record stays in flight.
    assert not AuditEvent.objects.filter(action=SIDE_EFFECT).exists()
    past_grace = timezone.now() - dt.timedelta(seconds=IN_FLIGHT_LOCK_GRACE_SECONDS + 1)
    assert IdempotencyRecord.objects.update(created_at=past_grace) == 1


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_retry_takes_over_a_record_whose_request_died_with_its_connection(
    api: Any, monkeypatch: Any
) -> None:
    _left_in_flight_by_a_dead_request(api, monkeypatch)
    retry = _post(api, {})
    assert retry.status_code == 201, retry.content
    assert "Idempotent-Replayed" not in retry.headers
    assert IdempotencyRecord.objects.get().state == IdempotencyState.COMPLETED
    assert _post(api, {}).headers["Idempotent-Replayed"] == "true"
    assert AuditEvent.objects.filter(action=SIDE_EFFECT).count() == 1


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_retry_never_takes_over_a_record_its_live_request_still_holds(
    api: Any, monkeypatch: Any
) -> None:
    _left_in_flight_by_a_dead_request(api, monkeypatch)
    record = IdempotencyRecord.objects.get()
    s = connection.settings_dict
    # The live request: its transaction holds the record's row lock, as _hold takes it.
    with psycopg.connect(
        dbname=s["NAME"],
        user=s["USER"],
        password=s.get("PASSWORD") or None,
        host=s.get("HOST") or "127.0.0.1",
        port=s.get("PORT") or 5432,
    ) as live:
        live.execute(
            f"SELECT 1 FROM {IdempotencyRecord._meta.db_table} WHERE id = %s FOR UPDATE",
            [record.pk],
        )
        duplicate = _post(api, {})
        assert duplicate.status_code == 409
        assert duplicate.json()["error"]["code"] == "idempotency_in_flight"
        live.rollback()
    assert IdempotencyRecord.objects.get().owner == record.owner  # not taken over
    assert _post(api, {}).status_code == 201  # released: now the retry may run


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_fresh_in_flight_record_is_not_taken_over_within_the_grace(
    api: Any, monkeypatch: Any
) -> None:
    _left_in_flight_by_a_dead_request(api, monkeypatch)
    IdempotencyRecord.objects.update(created_at=timezone.now())
    response = _post(api, {})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_in_flight"
