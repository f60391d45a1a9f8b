"""Finding 1 (High): arbitrary Python through the go-live API and the start form.

The attacker holds a token with `evals:run` (or is a release manager in the browser) and
names Python code as the agent or user: `python:builtins:print`, `python:os:system`, or a
module of their choosing. Nothing may be imported or called in the web process unless the
exact name is in EVALS_WEB_PYTHON_AGENTS; the command line keeps `python:` for everyone who
can run it. Canaries: a spy on the importer the `python:` resolver uses, and a canary
module that records being imported and called."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from evals import services
from evals.engine import registry
from evals.models import EvalRun
from tests.conftest import make_service_token, token_client, verified_client
from tests.security import canary_agent

pytestmark = pytest.mark.django_db

START = "/api/v1/evals/runs/start"
CODE_PREFIX = "python:"
CANARY = "tests.security.canary_agent"
CANARY_AGENT = f"python:{CANARY}:respond"
ATTACKS = [
    "python:builtins:print",
    "python:os:system",
    "python:subprocess:getoutput",
    CANARY_AGENT,
    " python:os:getcwd",
    "PYTHON:os:getcwd",
]


@pytest.fixture
def imports(monkeypatch: pytest.MonkeyPatch, settings) -> Iterator[list[str]]:
    """Every name the engine's `python:` resolver is asked to import, while runs execute
    in-request (so a request that got through would import and call inside the test)."""
    settings.EVALS_UI_INLINE = True
    registry.agent_names()  # load the plugins, so the resolver below is the one in use
    real = registry._agent_resolvers[CODE_PREFIX]
    seen: list[str] = []

    def spy(name: str):
        seen.append(name)
        return real(name)

    monkeypatch.setitem(registry._agent_resolvers, CODE_PREFIX, spy)
    sys.modules.pop(CANARY, None)
    canary_agent.CALLS.clear()
    yield seen
    sys.modules[CANARY] = canary_agent


def _nothing_ran(imports: list[str]) -> None:
    assert imports == []
    assert CANARY not in sys.modules
    assert canary_agent.CALLS == []


@pytest.mark.parametrize("agent", ATTACKS)
def test_a_token_with_evals_run_cannot_name_python_code_as_the_agent(
    agent, imports, django_capture_on_commit_callbacks
) -> None:
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client(raw).post(
            START,
            {"suite": "smoke", "agent": agent, "trials": 1},
            format="json",
            HTTP_IDEMPOTENCY_KEY="attack-1",
        )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_failed"
    assert "EVALS_WEB_PYTHON_AGENTS" in error["fields"]["agent"][0]
    assert not EvalRun.objects.exists()
    _nothing_ran(imports)


def test_python_code_as_the_user_simulator_is_refused_too(
    imports, django_capture_on_commit_callbacks
) -> None:
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client(raw).post(
            START,
            {"suite": "smoke", "user": CANARY_AGENT, "trials": 1},
            format="json",
            HTTP_IDEMPOTENCY_KEY="attack-2",
        )
    assert response.status_code == 400
    assert "user" in response.json()["error"]["fields"]
    assert not EvalRun.objects.exists()
    _nothing_ran(imports)


def _python_run(rita) -> EvalRun:
    """A run started from the command line with a `python:` agent (allowed there)."""
    suite = services.suite_override(
        suite=services.suite_load(name="smoke"), agent=CANARY_AGENT, trials=1
    )
    return services.eval_run_create(actor=rita, suite=suite, origin="cli:test")


def test_resuming_a_cli_python_run_through_the_api_is_refused(
    rita, imports, django_capture_on_commit_callbacks
) -> None:
    run = _python_run(rita)
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    client = token_client(raw)
    with django_capture_on_commit_callbacks(execute=True):
        plain = client.post(
            f"/api/v1/evals/runs/{run.pk}/resume", {}, format="json", HTTP_IDEMPOTENCY_KEY="r1"
        )
        swapped = client.post(
            f"/api/v1/evals/runs/{run.pk}/resume",
            {"agent": "python:os:getcwd"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="r2",
        )
    for response in (plain, swapped):
        assert response.status_code == 400, response.content
        assert "agent" in response.json()["error"]["fields"]
    run.refresh_from_db()
    assert run.status == "queued" and run.started_at is None
    _nothing_ran(imports)


def test_the_release_managers_start_form_refuses_python_code(
    rita, imports, django_capture_on_commit_callbacks
) -> None:
    client = verified_client(rita)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/evals/start/", {"suite": "smoke", "agent": "python:builtins:print", "trials": 1}
        )
    # The form comes back with its error (the start form re-renders on any refusal).
    assert response.status_code == 400
    assert not EvalRun.objects.exists()
    assert "EVALS_WEB_PYTHON_AGENTS" in response.content.decode()
    _nothing_ran(imports)


def test_the_run_page_does_not_resume_a_python_run(
    rita, imports, django_capture_on_commit_callbacks
) -> None:
    run = _python_run(rita)
    client = verified_client(rita)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/evals/{run.pk}/resume/")
    assert response.status_code == 302
    assert "EVALS_WEB_PYTHON_AGENTS" in client.get(response["Location"]).content.decode()
    run.refresh_from_db()
    assert run.started_at is None
    _nothing_ran(imports)


def test_an_allow_listed_name_is_accepted_and_only_that_exact_name(
    settings, imports, django_capture_on_commit_callbacks
) -> None:
    settings.EVALS_WEB_PYTHON_AGENTS = [CANARY_AGENT]
    _, raw = make_service_token(["evals:run"], username="ci-bot")
    client = token_client(raw)
    near = client.post(
        START,
        {"suite": "smoke", "agent": f"python:{CANARY}:CALLS", "trials": 1},
        format="json",
        HTTP_IDEMPOTENCY_KEY="near",
    )
    assert near.status_code == 400
    _nothing_ran(imports)
    with django_capture_on_commit_callbacks(execute=True):
        allowed = client.post(
            START,
            {"suite": "smoke", "agent": CANARY_AGENT, "trials": 1},
            format="json",
            HTTP_IDEMPOTENCY_KEY="allowed",
        )
    assert allowed.status_code == 202, allowed.content
    # The allow-list is what decided: the listed code did run, in this process.
    assert set(imports) == {CANARY_AGENT}
    assert sys.modules[CANARY].CALLS, "imported afresh by the run, and called"


def test_the_allow_list_is_empty_by_default() -> None:
    import backoffice.settings as project_settings

    assert project_settings.EVALS_WEB_PYTHON_AGENTS == []
