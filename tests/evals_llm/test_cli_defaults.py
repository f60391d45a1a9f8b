"""What `python -m evals.engine run --workers N` does with nothing else said (issue 17): an
LLM run gets one process per core and a model client that never holds it below the trials
asked for; an offline run stays in one process; what the user sets always wins."""

from __future__ import annotations

import json

import pytest

import evals.engine.cli as cli
from evals.engine.llm import CallRole, ModelClient, ModelSpec, TrialAccounting
from evals.engine.llm import client as client_module
from evals.engine.llm.shared import current_client, set_default_client
from tests.support.openai_server import text

TASK = ["--domain", "retail", "--tasks", "retail-000-cancel-email", "--trials", "1"]


@pytest.fixture
def seen(monkeypatch):
    """The real run, in one process whatever the CLI chose (a fork inside pytest is the
    runner's own tests' business), with what the CLI chose and the client it installed."""
    seen: dict = {}
    real_run = cli.run

    def spy(spec, sink, *, workers, processes, **kwargs):
        client = current_client()
        seen.update(
            workers=workers,
            processes=processes,
            limit=client.limits.default if client else None,
            event_loop=client.event_loop if client else None,
            client=client,
        )
        return real_run(spec, sink, workers=1, processes=1, **kwargs)

    monkeypatch.setattr(cli, "run", spy)
    monkeypatch.setattr(cli.os, "cpu_count", lambda: 2)
    monkeypatch.delenv("EVALS_LLM_CONCURRENCY", raising=False)
    monkeypatch.delenv("EVALS_LLM_EVENT_LOOP", raising=False)
    set_default_client(None)
    yield seen
    set_default_client(None)


def _llm_run(capsys, tmp_path, server, *args: str) -> int:
    server.set_handler(lambda body, head: text("Could you tell me your email address?"))
    params = json.dumps({"api_base": server.url, "api_key": "x"})
    code = cli.main(
        ["run", *TASK, "--out", str(tmp_path / "run.jsonl"), "--ks", "1", "--no-probe",
         "--agent", "openai/agent-x", "--agent-args", params, "--max-turns", "2", *args]
    )  # fmt: skip
    capsys.readouterr()
    return code


def test_an_llm_run_with_workers_gets_one_process_per_core(capsys, tmp_path, openai_server, seen):
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "8") == 0
    assert seen["processes"] == 2 and seen["workers"] == 8


def test_never_more_processes_than_workers_and_one_for_one_worker(
    capsys, tmp_path, openai_server, seen, monkeypatch
):
    monkeypatch.setattr(cli.os, "cpu_count", lambda: 16)
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "3") == 0
    assert seen["processes"] == 3
    (tmp_path / "run.jsonl").unlink()
    (tmp_path / "run.jsonl.run.json").unlink()
    assert _llm_run(capsys, tmp_path, openai_server) == 0
    assert seen["processes"] == 1


def test_litellm_is_imported_before_the_worker_processes_are_forked(
    capsys, tmp_path, openai_server, seen, monkeypatch
):
    """--no-probe makes no model call before the run: without the import in the parent,
    each forked child would pay it (most of the CLI's start-up CPU) again."""
    order: list[str] = []
    monkeypatch.setattr(cli, "litellm_module", lambda: order.append("import"))
    real_run = cli.run

    def after_import(spec, sink, **kwargs):
        order.append(f"run in {kwargs['processes']} processes")
        return real_run(spec, sink, **kwargs)

    monkeypatch.setattr(cli, "run", after_import)
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "8") == 0
    assert order == ["import", "run in 2 processes"]


def test_one_process_imports_litellm_only_when_a_call_needs_it(
    capsys, tmp_path, openai_server, seen, monkeypatch
):
    order: list[str] = []
    monkeypatch.setattr(cli, "litellm_module", lambda: order.append("import"))
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "1") == 0
    assert order == []


def test_the_processes_flag_wins(capsys, tmp_path, openai_server, seen):
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "8", "--processes", "1") == 0
    assert seen["processes"] == 1


def test_an_offline_run_stays_in_one_process_with_no_client_installed(capsys, tmp_path, seen):
    code = cli.main(
        ["run", *TASK, "--out", str(tmp_path / "off.jsonl"), "--ks", "1", "--workers", "8"]
    )
    capsys.readouterr()
    assert code == 0
    assert seen["processes"] == 1 and seen["client"] is None


def test_256_trials_in_flight_are_not_capped_at_64_calls(capsys, tmp_path, openai_server, seen):
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "256") == 0
    # 128 trials a process: their calls go on one event loop per process.
    assert seen["limit"] == 256 and seen["event_loop"] is True
    # The run's client is dropped with the run: nothing lingers for the next caller.
    assert current_client() is None


def test_few_trials_a_process_keep_their_threads_and_the_default_limit(
    capsys, tmp_path, openai_server, seen
):
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "8") == 0
    assert seen["limit"] == 64 and seen["event_loop"] is False


def test_the_environment_still_sets_the_limit_and_the_loop(
    capsys, tmp_path, openai_server, seen, monkeypatch
):
    monkeypatch.setenv("EVALS_LLM_CONCURRENCY", "10")
    monkeypatch.setenv("EVALS_LLM_EVENT_LOOP", "0")
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "256") == 0
    assert seen["limit"] == 10 and seen["event_loop"] is False


def test_a_client_the_caller_installed_is_used_and_kept(capsys, tmp_path, openai_server, seen):
    mine = ModelClient()
    set_default_client(mine)
    assert _llm_run(capsys, tmp_path, openai_server, "--workers", "256") == 0
    assert seen["client"] is mine and current_client() is mine


def test_routing_and_price_lookups_are_made_once_per_model(openai_server):
    """Every trial builds new specs; LiteLLM's routing and price table are asked about a
    name once per process, and the answer (unpriced: cost unknown) stays the same."""
    client_module._route.cache_clear()
    client_module._in_price_table.cache_clear()
    openai_server.set_handler(lambda body, head: text("hello"))
    client = ModelClient()
    for trial in range(3):
        spec = ModelSpec("openai/cached-x", api_base=openai_server.url, api_key="x")
        completion = client.complete(
            spec,
            [{"role": "user", "content": "hi"}],
            role=CallRole.AGENT,
            accounting=TrialAccounting(f"t{trial}"),
        )
        assert completion.content == "hello" and not completion.record.cost_known
    for lookup in (client_module._route, client_module._in_price_table):
        assert (lookup.cache_info().misses, lookup.cache_info().hits) == (1, 2)


def test_a_model_that_cannot_be_routed_is_asked_about_again(monkeypatch):
    """A failure is not kept: a name fixed meanwhile (a provider registered) routes."""
    litellm = client_module.litellm_module()
    calls = []

    def route(**kwargs):
        calls.append(kwargs["model"])
        raise ValueError("no provider")

    monkeypatch.setattr(litellm, "get_llm_provider", route)
    client_module._route.cache_clear()
    for _ in range(2):
        with pytest.raises(ValueError):
            client_module._route(litellm, "nowhere/x", None)
    assert calls == ["nowhere/x", "nowhere/x"]
