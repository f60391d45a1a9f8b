"""Finding 2 (Medium): bad input answered with 500s. The attacker (a logged-in operator, a
token holder, or anyone for the API's error pages) sends ids past 64 bits, NUL bytes, JSON
nested 100 000 deep, a reconciliation over all of time; every answer must be a 4xx in the
API's JSON error shape (or the UI's page), never a 500, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.conftest import make_service_token, token_client, verified_client

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999"  # > 2**64
NEGATIVE_HUGE = "-99999999999999999999"


def _json_error(response, status: int = 400) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] and body["error"]["message"]
    return body["error"]


@pytest.mark.parametrize(
    ("url", "field"),
    [
        (f"/api/v1/tickets?view=all&queue={HUGE}", "queue"),
        (f"/api/v1/tickets?view=all&assignee={HUGE}", "assignee"),
        (f"/api/v1/tickets?view=all&queue={NEGATIVE_HUGE}", "queue"),
        (f"/api/v1/refunds?payment_id={HUGE}", "payment_id"),
        ("/api/v1/refunds?payment_id=abc", "payment_id"),
    ],
)
def test_an_id_past_64_bits_in_an_api_filter_is_a_400_naming_it(url, field, sam) -> None:
    client = verified_client(sam, api=True)
    error = _json_error(client.get(url))
    assert error["code"] == "validation_failed" and field in error["fields"]


@pytest.mark.parametrize(
    "url",
    [
        f"/api/v1/tickets/{HUGE}",
        f"/api/v1/refunds/{HUGE}",
        f"/api/v1/payments/{HUGE}",
        f"/api/v1/evals/runs/{HUGE}",
    ],
)
def test_an_id_past_64_bits_in_an_api_path_is_a_4xx_in_the_error_shape(url, sam) -> None:
    client = verified_client(sam, api=True)
    client.raise_request_exception = False
    response = client.get(url)
    assert response.status_code in (400, 403, 404)
    _json_error(response, response.status_code)


def test_an_id_past_64_bits_in_the_inbox_filter_is_ignored_like_any_other_text(alice) -> None:
    client = verified_client(alice)
    for key in ("queue", "assignee"):
        response = client.get(f"/tickets/?{key}={HUGE}")
        assert response.status_code == 200, key


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/tickets?view=all&q=%00",
        "/api/v1/tickets?view=all&tag=a%00b",
        "/api/v1/refunds?status=%00",
        "/api/v1/evals/runs?suite=%00",
        "/api/v1/tickets?%00=1",
    ],
)
def test_a_nul_byte_in_an_api_query_is_a_400(url, sam) -> None:
    client = verified_client(sam, api=True)
    error = _json_error(client.get(url))
    assert "NUL" in error["message"]


def test_a_nul_byte_in_a_page_query_or_form_is_a_400(sam) -> None:
    client = verified_client(sam)
    assert client.get("/tickets/?q=%00").status_code == 400
    assert client.get("/tickets/?tag=%00").status_code == 400
    anonymous = Client()
    response = anonymous.post("/login/", {"username": "sam\x00", "password": "x"})
    assert response.status_code == 400


def test_a_nul_byte_in_a_json_body_is_a_400() -> None:
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    client = token_client(raw)
    for body in ({"suite": "smoke\x00"}, {"suite": "smoke", "personas": ["a\x00"]}, {"k\x00": 1}):
        response = client.post(
            "/api/v1/evals/runs/start",
            json.dumps(body),
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="nul",
        )
        error = _json_error(response)
        assert "NUL" in error["message"]


@pytest.mark.parametrize("depth", [40, 1000, 100_000])
@pytest.mark.parametrize(
    ("url", "scopes"),
    [("/api/v1/evals/runs/start", ["evals:run"]), ("/api/v1/refunds/request", ["refunds:request"])],
)
def test_deeply_nested_json_is_a_400_not_a_recursion_error(url, scopes, depth) -> None:
    _, raw = make_service_token(scopes, username="nester")
    response = token_client(raw).post(
        url, "[" * depth, content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"deep{depth}"
    )
    error = _json_error(response)
    assert "nested" in error["message"] or "JSON" in error["message"]


def test_json_within_the_depth_limit_still_reaches_validation() -> None:
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    response = token_client(raw).post(
        "/api/v1/evals/runs/start",
        json.dumps({"suite": "nope", "x": [[[[[1]]]]]}),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="shallow",
    )
    assert "suite" in _json_error(response)["fields"]


@pytest.mark.parametrize(
    ("date_from", "date_to"),
    [("0001-01-01", "9999-12-31"), ("9999-12-31", "9999-12-31"), ("2020-01-01", "2024-01-01")],
)
def test_a_reconciliation_period_out_of_bounds_is_refused(sam, date_from, date_to) -> None:
    client = verified_client(sam, api=True)
    response = client.post(
        "/api/v1/reconciliation/run",
        {"date_from": date_from, "date_to": date_to},
        format="json",
        HTTP_IDEMPOTENCY_KEY=f"rec-{date_from}-{date_to}",
    )
    assert "date_to" in _json_error(response)["fields"]
    page = verified_client(sam)
    response = page.post(
        "/payments/reconciliation/run/", {"date_from": date_from, "date_to": date_to}
    )
    assert response.status_code == 302
    assert "reconcile it in parts" in page.get(response["Location"]).content.decode()


def test_an_unknown_api_url_is_a_404_in_the_error_shape() -> None:
    error = _json_error(Client().get("/api/v1/no-such-endpoint"), 404)
    assert error["code"] == "not_found"


def test_an_unexpected_api_failure_is_a_500_in_the_error_shape(sam, monkeypatch) -> None:
    def boom(**kwargs):
        raise RuntimeError("a bug the attacker found")

    monkeypatch.setattr("payments_sandbox.selectors.refund_list", boom)
    client = verified_client(sam, api=True)
    client.raise_request_exception = False
    error = _json_error(client.get("/api/v1/refunds"), 500)
    assert error["code"] == "server_error"
    assert "a bug the attacker found" not in error["message"]


def test_an_unexpected_page_failure_stays_an_html_page(sam, monkeypatch) -> None:
    def boom(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("payments_sandbox.selectors.reconciliation_report_list", boom)
    client = verified_client(sam)
    client.raise_request_exception = False
    response = client.get("/payments/reconciliation/")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    "url",
    [f"/tickets/{HUGE}/", f"/payments/refunds/{HUGE}/", f"/payments/{HUGE}/", f"/evals/{HUGE}/"],
)
def test_an_id_past_64_bits_in_a_page_url_is_a_4xx(url, sam, rita) -> None:
    for operator in (sam, rita):
        client = verified_client(operator)
        client.raise_request_exception = False
        assert client.get(url).status_code in (400, 403, 404), (url, operator)
