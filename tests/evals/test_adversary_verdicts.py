"""The verdict each agent of the adversarial review gets from `golive run`: a plain fail
(exit 1) on its own figures — never a pass, and never "could not complete" by spoiling its
trials into simulator errors or short cells — with pass^1 below the gate's bar and the same
figure with excluded trials counted as failures."""

from __future__ import annotations

import pytest

from evals.models import EvalRun
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db

# The default suite's bars (suites/default.toml), on the smoke tasks of both offline domains.
GATE = {
    "pass_hat_k_lower": 0.95,
    "pass_hat_1": 0.98,
    "max_policy_violations": 0,
    "max_infrastructure_error_rate": 0.01,
    "max_simulator_error_rate": 0.0,
}
DOMAINS = [{"name": "retail", "split": "smoke"}, {"name": "membership", "split": "smoke"}]
ADVERSARIES = [
    "sandbox/fault:do_nothing",
    "sandbox/adversary:stall",
    "sandbox/adversary:blanket_refuser",
    "sandbox/adversary:transfer_proposer",
    "sandbox/adversary:sometimes_stop",
]
MEASURED = ("simulator_error_rate", "infrastructure_error_rate", "cells_measured", "judged")


@pytest.mark.parametrize("agent", ADVERSARIES)
def test_each_adversary_gets_a_plain_fail_on_its_own_measured_figures(suite_file, agent) -> None:
    path = suite_file(agent={"model": agent}, trials=4, domains=DOMAINS, gate=GATE)
    code, out, err = golive("run", "--suite", path)
    run = EvalRun.objects.get()
    assert (code, run.verdict) == (1, "fail"), (out, err)
    checks = {c["check"]: c for c in run.verdict_reasons}
    # Every trial measured: the fail is the agent's, not a missing verdict.
    assert all(checks[name]["ok"] for name in MEASURED), [checks[n] for n in MEASURED]
    assert not checks["pass^1"]["ok"] and checks["pass^1"]["observed"] < 0.98
    report = run.summary["report"]
    assert report["simulator_errors"] == report["not_judged"] == 0
    assert report["pass_hat"]["1"]["value"] == report["pass_hat_strict"]["1"]["value"]
    assert report["pass_hat"]["4"]["value"] == report["pass_hat_strict"]["4"]["value"]
