"""Before a run starts, its agent and user simulator are checked: an offline name must be
registered, an LLM model gets one call through the model client. The actors: a release
manager with a typo in the model name, a key that the provider refuses, a key variable that
is not set, a provider that does not know the model, and a provider that is only busy.
Offline: LiteLLM's `mock_response`, its local routing, and the local OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import reverse

from evals.models import EvalRun
from evals.services import suite_models_probe
from tests.conftest import verified_client
from tests.evals.conftest import DOWN, golive
from tests.support.openai_server import OpenAIServer, Reply, rate_limited

pytestmark = pytest.mark.django_db

MADE_UP = "gpt-imaginary-9"


@pytest.fixture
def provider() -> Iterator[OpenAIServer]:
    """The local OpenAI-compatible server: `openai/<name>` models are scripted by name."""
    with OpenAIServer() as server:
        yield server


def _llm(server: Any, name: str, **params: Any) -> dict[str, Any]:
    return {
        "model": f"openai/{name}",
        "params": {"api_base": server.url, "api_key": "sk-test", **params},
    }


def test_a_made_up_model_name_is_refused_before_any_call(make_suite) -> None:
    problems = suite_models_probe(suite=make_suite(agent={"model": MADE_UP}))
    assert list(problems) == ["agent"]
    assert problems["agent"].startswith(f"agent '{MADE_UP}':")
    assert "cannot route" in problems["agent"] and "\n" not in problems["agent"]


def test_registered_offline_models_pass_and_an_unknown_sandbox_name_does_not(make_suite) -> None:
    assert suite_models_probe(suite=make_suite()) == {}
    assert suite_models_probe(suite=make_suite(agent={"model": DOWN})) == {}  # a test plugin
    problems = suite_models_probe(
        suite=make_suite(agent={"model": "sandbox/referense"}, user={"model": "sandbox/scriptd"})
    )
    assert set(problems) == {"agent", "user"}
    assert "sandbox/reference" in problems["agent"]  # the names that do exist
    assert problems["user"].startswith("user simulator 'sandbox/scriptd'")


def test_an_unknown_model_at_the_provider_is_named_with_the_providers_words(
    make_suite, provider
) -> None:
    provider.script(
        "no-such-model",
        Reply(status=404, error_message="The model `no-such-model` does not exist"),
    )
    problems = suite_models_probe(suite=make_suite(agent=_llm(provider, "no-such-model")))
    assert "does not exist" in problems["agent"]
    assert len(provider.requests_for("no-such-model")) == 1  # one call, no retry


def test_a_refused_key_is_reported(make_suite, provider) -> None:
    provider.script(
        "some-model", Reply(status=401, error_message="Incorrect API key provided: sk-test")
    )
    problems = suite_models_probe(suite=make_suite(user=_llm(provider, "some-model")))
    assert list(problems) == ["user"] and "Incorrect API key" in problems["user"]


def test_a_key_variable_that_is_not_set_is_reported_without_a_call(
    make_suite, provider, monkeypatch
) -> None:
    monkeypatch.delenv("GOLIVE_TEST_KEY", raising=False)
    agent = {
        "model": "openai/m",
        "params": {"api_base": provider.url, "api_key_env": "GOLIVE_TEST_KEY"},
    }
    problems = suite_models_probe(suite=make_suite(agent=agent))
    assert "GOLIVE_TEST_KEY is not set" in problems["agent"]
    assert provider.requests == []


def test_models_that_answer_pass_with_one_call_each(make_suite, provider) -> None:
    suite = make_suite(agent=_llm(provider, "agent-m"), user=_llm(provider, "user-m"))
    assert suite_models_probe(suite=suite) == {}
    assert len(provider.requests_for("agent-m")) == 1
    assert len(provider.requests_for("user-m")) == 1


def test_a_busy_provider_is_not_a_reason_to_refuse(make_suite, provider) -> None:
    provider.script("busy", rate_limited(retry_after=0.01))
    assert suite_models_probe(suite=make_suite(agent=_llm(provider, "busy"))) == {}


def test_litellm_mock_responses_pass_and_a_mocked_outage_does_not(make_suite) -> None:
    ok = {"model": "gpt-4o-mini", "params": {"mock_response": "OK"}}
    assert suite_models_probe(suite=make_suite(agent=ok, user=ok)) == {}
    busy = {"model": "gpt-4o-mini", "params": {"mock_response": "litellm.RateLimitError"}}
    assert suite_models_probe(suite=make_suite(agent=busy)) == {}
    down = {"model": "gpt-4o-mini", "params": {"mock_response": "litellm.InternalServerError"}}
    problems = suite_models_probe(suite=make_suite(user=down))
    assert list(problems) == ["user"] and "server" in problems["user"]


@pytest.mark.parametrize("plan", [False, True])
def test_golive_run_and_plan_exit_2_with_one_line_and_create_nothing(plan: bool) -> None:
    args = ["run", "--suite", "smoke", "--agent", MADE_UP, "--no-progress"]
    code, out, err = golive(*args, *(["--plan"] if plan else []))
    assert code == 2
    assert err.startswith(f"golive: agent '{MADE_UP}':") and err.count("\n") <= 1, err
    assert "trials" not in out  # neither a plan nor a run was printed
    assert not EvalRun.objects.exists()


def test_the_start_form_shows_the_probe_error_and_starts_nothing(rita) -> None:
    client = verified_client(rita)
    response = client.post(reverse("evals:run_start"), {"suite": "smoke", "agent": MADE_UP})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-testid="start-errors"' in html and f"agent &#x27;{MADE_UP}&#x27;" in html
    assert f'value="{MADE_UP}"' in html  # what was typed stays, to be corrected
    assert not EvalRun.objects.exists()


def test_the_api_start_probes_the_models_and_starts_nothing(settings) -> None:
    """CI starting a run with a made-up agent gets the probe's 400 naming the agent, as the
    form and `golive run` do, instead of a run that ends "could not complete"."""
    from tests.conftest import make_service_token, token_client

    _, raw = make_service_token(["evals:run"], username="ci-bot")
    response = token_client(raw).post(
        "/api/v1/evals/runs/start",
        {"suite": "smoke", "agent": MADE_UP},
        format="json",
        HTTP_IDEMPOTENCY_KEY="probe-1",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert list(error["fields"]) == ["agent"] and MADE_UP in error["fields"]["agent"][0]
    assert not EvalRun.objects.exists()
