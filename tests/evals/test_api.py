"""/api/v1/evals/runs: CI service principals by token scope, humans by role; starting a run
takes an Idempotency-Key so a retried CI call never starts a second run."""

from __future__ import annotations

import pytest

from evals import services
from evals.models import EvalRun, RunStatus
from tests.conftest import make_service_token, token_client, verified_client

pytestmark = pytest.mark.django_db

START = "/api/v1/evals/runs/start"


def test_a_ci_principal_with_evals_run_starts_a_run_once_per_idempotency_key(
    settings, django_capture_on_commit_callbacks
) -> None:
    settings.EVALS_UI_INLINE = True
    principal, raw = make_service_token(["evals:run"], username="ci-bot")
    client = token_client(raw)
    body = {"suite": "smoke", "trials": 2}
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(START, body, format="json", HTTP_IDEMPOTENCY_KEY="build-42")
    assert first.status_code == 202, first.content
    replay = client.post(START, body, format="json", HTTP_IDEMPOTENCY_KEY="build-42")
    assert replay.status_code == 202 and replay["Idempotent-Replayed"] == "true"
    assert EvalRun.objects.count() == 1
    run = EvalRun.objects.get()
    assert run.started_by == principal
    detail = client.get(f"/api/v1/evals/runs/{run.pk}").json()
    assert detail["status"] == "completed" and detail["verdict"] == "pass"
    assert (
        detail["finished_units"] == 20
        and detail["summary"]["report"]["pass_hat"]["1"]["value"] > 0.8
    )
    assert detail["report_url"].endswith(f"/evals/{run.pk}/")
    listing = client.get("/api/v1/evals/runs").json()
    assert [r["id"] for r in listing["results"]] == [run.pk]


def test_a_start_without_idempotency_key_is_refused() -> None:
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    response = token_client(raw).post(START, {"suite": "smoke"}, format="json")
    assert response.status_code == 400
    assert not EvalRun.objects.exists()


def test_a_read_scope_reads_but_cannot_start(rita, make_suite) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    _, raw = make_service_token(["evals:read"], username="dashboard-bot")
    client = token_client(raw)
    assert client.get(f"/api/v1/evals/runs/{run.pk}").status_code == 200
    response = client.post(START, {"suite": "smoke"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert response.status_code == 403


def test_other_scopes_see_nothing() -> None:
    _, raw = make_service_token(["refunds:request"])
    assert token_client(raw).get("/api/v1/evals/runs").status_code == 403


def test_an_unknown_suite_or_a_path_is_a_validation_error_naming_the_field() -> None:
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    client = token_client(raw)
    for i, name in enumerate(["nope", "../../etc/passwd", "/tmp/x.toml"]):
        response = client.post(START, {"suite": name}, format="json", HTTP_IDEMPOTENCY_KEY=f"k{i}")
        assert response.status_code == 400, name
        assert "suite" in response.json()["error"]["fields"]
    assert not EvalRun.objects.exists()


@pytest.mark.parametrize(
    ("persona", "read", "start"), [("rita", 200, 202), ("audrey", 200, 403), ("alice", 403, 403)]
)
def test_humans_by_role(request, persona, read, start, settings) -> None:
    settings.EVALS_UI_INLINE = True
    client = verified_client(request.getfixturevalue(persona), api=True)
    assert client.get("/api/v1/evals/runs").status_code == read
    response = client.post(START, {"suite": "smoke"}, format="json", HTTP_IDEMPOTENCY_KEY="h1")
    assert response.status_code == start


def _failed_run(rita, suite) -> EvalRun:
    run = services.eval_run_create(actor=rita, suite=suite)
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    return run


def test_resuming_with_another_agent_answers_409_with_the_reason(rita, make_suite) -> None:
    run = _failed_run(rita, make_suite())
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    response = token_client(raw).post(
        f"/api/v1/evals/runs/{run.pk}/resume",
        {"agent": "sandbox/fault:do_nothing"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="resume-1",
    )
    assert response.status_code == 409
    assert response.json() == {
        "error": {
            "code": "conflict",
            "message": f"Run #{run.pk} holds trials of agent sandbox/reference, this resume's "
            "agent is sandbox/fault:do_nothing: start a new run instead.",
        }
    }
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED


def test_a_resume_of_the_same_run_completes_it(
    rita, make_suite, settings, django_capture_on_commit_callbacks
) -> None:
    settings.EVALS_UI_INLINE = True
    run = _failed_run(rita, make_suite())
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    client = token_client(raw)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/v1/evals/runs/{run.pk}/resume", {}, format="json", HTTP_IDEMPOTENCY_KEY="r2"
        )
    assert response.status_code == 202, response.content
    detail = client.get(f"/api/v1/evals/runs/{run.pk}").json()
    assert detail["status"] == "completed" and detail["finished_units"] == 20


def test_a_read_scope_cannot_resume(rita, make_suite) -> None:
    run = _failed_run(rita, make_suite())
    _, raw = make_service_token(["evals:read"], username="dashboard-bot")
    response = token_client(raw).post(
        f"/api/v1/evals/runs/{run.pk}/resume", {}, format="json", HTTP_IDEMPOTENCY_KEY="r3"
    )
    assert response.status_code == 403
