"""Bearer-token authentication of service principals: the token row and its operator are
read in one statement on every request, so revocation, expiry and deactivation take effect
on the very next request (nothing about a token is cached between requests)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from identity.authentication import token_by_prefix
from identity.models import ApiToken
from tests.conftest import make_service_token, token_client

pytestmark = pytest.mark.django_db

URL = "/api/v1/refunds"


def _token(raw: str) -> ApiToken:
    return ApiToken.objects.get(prefix=raw.split("_")[1])


def test_a_valid_token_is_admitted_and_loads_its_operator_in_one_statement() -> None:
    principal, raw = make_service_token(["refunds:read"])
    assert token_client(raw).get(URL).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        token = token_by_prefix(raw.split("_")[1])
    assert len(queries.captured_queries) == 1
    assert token is not None and token.operator == principal
    assert token.scopes == ["refunds:read"] and token.operator.is_service_principal
    assert token.created_at == _token(raw).created_at


def test_it_refuses_a_revoked_token_on_the_next_request() -> None:
    _, raw = make_service_token(["refunds:read"])
    client = token_client(raw)
    assert client.get(URL).status_code == 200
    ApiToken.objects.filter(pk=_token(raw).pk).update(revoked_at=timezone.now())
    assert client.get(URL).status_code == 401


def test_it_refuses_an_expired_token() -> None:
    _, raw = make_service_token(["refunds:read"])
    ApiToken.objects.filter(pk=_token(raw).pk).update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    assert token_client(raw).get(URL).status_code == 401


def test_it_refuses_the_token_of_a_deactivated_principal() -> None:
    principal, raw = make_service_token(["refunds:read"])
    principal.is_active = False
    principal.save(update_fields=["is_active"])
    assert token_client(raw).get(URL).status_code == 401


def test_it_refuses_a_known_prefix_with_the_wrong_secret_and_an_unknown_prefix() -> None:
    _, raw = make_service_token(["refunds:read"])
    prefix = raw.split("_")[1]
    assert token_client(f"bo_{prefix}_{'x' * 43}").get(URL).status_code == 401
    assert token_client(f"bo_{'0' * 10}_{raw.split('_', 2)[2]}").get(URL).status_code == 401
    assert token_client("not-a-token").get(URL).status_code == 401


def test_last_used_is_written_at_most_once_a_minute() -> None:
    _, raw = make_service_token(["refunds:read"])
    client = token_client(raw)
    client.get(URL)
    first = _token(raw).last_used_at
    assert first is not None
    client.get(URL)
    assert _token(raw).last_used_at == first
