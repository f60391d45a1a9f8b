"""A do-nothing agent and a blanket refuser score 0 on every task of every domain, run the
way a team runs them: through the engine CLI (`python -m evals.engine run`), its JSON report
and the trial lines it writes. The offline domains talk to their scripted customers;
`tau2_retail`, which has none, to the scripted τ² customer of tests/support/tau2_script.py
on the local OpenAI-compatible server (`openai/tau2-user`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.__main__ import main as engine_main
from evals.engine.llm import ModelClient
from evals.engine.llm.shared import set_default_client
from tests.support import tau2_script

BAD_AGENTS = ["sandbox/fault:do_nothing", "sandbox/adversary:blanket_refuser"]


def _cli(capsys: Any, out: Path, domains: str, agent: str, *extra: str) -> dict[str, Any]:
    argv = ["run", "--domain", domains, "--trials", "1", "--agent", agent, "--ks", "1"]
    code = engine_main([*argv, "--out", str(out), "--json", "--no-trajectory", *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report: dict[str, Any] = json.loads(captured.out)
    return report


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def _assert_zero_everywhere(report: dict[str, Any], out: Path, domains: list[str]) -> None:
    lines = _lines(out)
    every_task = {(d, t.id) for d in domains for t in get_domain(d).tasks()}
    assert {(x["domain"], x["task_id"]) for x in lines} == every_task
    passed = sorted(f"{x['domain']}/{x['task_id']}" for x in lines if x["reward"] >= 1.0)
    assert passed == []
    assert not [x for x in lines if x["termination"] == "infrastructure_error"]
    for domain in domains:
        assert report["by_domain"][domain]["1"]["value"] == 0.0, domain
    # Excluded trials (a task judged in prose alone, passed on the database, is `not judged`)
    # never turn into passes: the report's excluded counts say how many there were.
    excluded = sum(
        1 for x in lines if x["termination"] == "simulator_error" or x["failure"] == "not_judged"
    )
    assert report["simulator_errors"] + report["not_judged"] == excluded


@pytest.mark.parametrize("agent", BAD_AGENTS)
def test_a_bad_agent_scores_zero_on_every_task_of_every_offline_domain_through_the_cli(
    agent, capsys, tmp_path
):
    domains = ["retail", "membership", "tau2_mock"]
    out = tmp_path / "bad.jsonl"
    report = _cli(capsys, out, ",".join(domains), agent)
    _assert_zero_everywhere(report, out, domains)
    assert report["simulator_errors"] == 0


@pytest.mark.parametrize("agent", BAD_AGENTS)
def test_a_bad_agent_scores_zero_on_every_tau2_retail_task_through_the_cli(
    agent, capsys, tmp_path, openai_server, monkeypatch
):
    openai_server.set_handler(tau2_script.handler)
    monkeypatch.setenv("OPENAI_API_BASE", openai_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    set_default_client(ModelClient())
    out = tmp_path / "bad.jsonl"
    try:
        report = _cli(capsys, out, "tau2_retail", agent, "--user", "openai/tau2-user")
    finally:
        set_default_client(None)
    _assert_zero_everywhere(report, out, ["tau2_retail"])
    assert report["simulator_errors"] == 0
