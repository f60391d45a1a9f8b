"""Fault injection: the LLM provider fails 30 % of calls with 429, 500 and timeouts.

A go-live run drives an LLM agent and an LLM customer (the scripted τ² pair of
tests/support/tau2_script.py, through the local OpenAI-compatible server) on the tau2_mock
tasks; a wrapper in front of the script fails 30 % of the calls, chosen by a seeded random
generator. docs/evals.md promises: transient provider errors are retried; a trial the
provider still broke is an infrastructure error, never the agent's failure; infrastructure
errors are excluded from pass^k and gated, and above the gate's rate the run "could not
complete" instead of passing or failing. Each test holds one of those promises, with the
fault-free run as the reference for what each trial should have scored.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections import Counter
from collections.abc import Iterator
from email.message import Message
from typing import Any

import pytest

from evals import services
from evals.domains import get_domain
from evals.engine.llm import ModelClient
from evals.engine.llm.shared import set_default_client
from evals.models import EvalRun, RunStatus, TrialOutcome, Verdict
from evals.services.suites import suite_from_mapping
from identity.models import Operator
from tests.evals.conftest import store_selftest
from tests.support import tau2_script
from tests.support.openai_server import OpenAIServer, Reply, rate_limited, server_error

pytestmark = pytest.mark.django_db

TIMEOUT_S = 0.4
FAULT_RATE = 0.3


class Flaky:
    """Fails FAULT_RATE of the calls, a third each with 429, 500 and an answer that comes
    after the client's timeout; the rest go to the script."""

    def __init__(self, seed: int = 14) -> None:
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.calls = 0
        self.faults: Counter[str] = Counter()

    def __call__(self, body: dict[str, Any], headers: Message) -> Reply:
        with self.lock:
            self.calls += 1
            roll, kind = self.rng.random(), self.rng.choice(("429", "500", "timeout"))
            if roll < FAULT_RATE:
                self.faults[kind] += 1
        answer = tau2_script.handler(body, headers)
        if roll >= FAULT_RATE:
            return answer
        if kind == "429":
            return rate_limited(retry_after=0.01)
        if kind == "500":
            return server_error()
        return dataclasses.replace(answer, delay=TIMEOUT_S * 3)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    server = OpenAIServer(record=False).start()
    set_default_client(ModelClient())
    try:
        yield server
    finally:
        set_default_client(None)
        server.stop()


def _suite(server: OpenAIServer, retries: int) -> Any:
    tasks = [t.id for t in get_domain("tau2_mock").tasks() if not t.needs_judge and not t.history]
    params = {
        "api_base": server.url,
        "api_key": "test",
        "timeout_s": TIMEOUT_S,
        "retries": retries,
        "retry_delay_s": 0.01,
    }
    return suite_from_mapping(
        {
            "name": "faults",
            "seed": 7,
            "trials": 1,
            "workers": 1,
            "personas": ["baseline"],
            "domains": [{"name": "tau2_mock", "tasks": tasks}],
            "agent": {"model": "openai/tau2-agent", "params": params},
            "user": {"model": "openai/tau2-user", "params": params},
            "gate": {"pass_hat_1": 0.5, "max_infrastructure_error_rate": 0.0},
        }
    )


def _execute(actor: Operator, suite: Any) -> EvalRun:
    store_selftest()  # the oracle's self-test at this code version, which the gate requires
    run = services.eval_run_create(actor=actor, suite=suite)
    return services.eval_run_execute(actor=actor, run_id=run.pk)


def _outcomes(run: EvalRun) -> dict[tuple[str, str, int], str]:
    rows = list(run.trials.values_list("task_id", "persona", "trial", "outcome"))
    keys = [(t, p, n) for t, p, n, _ in rows]
    assert len(keys) == len(set(keys)), "a trial was stored twice"
    return {(t, p, n): outcome for t, p, n, outcome in rows}


def test_with_retries_the_flaky_provider_changes_no_trials_outcome(
    rita: Operator, server: OpenAIServer
) -> None:
    server.set_handler(tau2_script.handler)
    clean = _execute(rita, _suite(server, retries=4))
    reference = _outcomes(clean)
    assert set(reference.values()) == {TrialOutcome.PASS}
    assert clean.verdict == Verdict.PASS, [c for c in clean.verdict_reasons if not c["ok"]]

    flaky = Flaky()
    server.set_handler(flaky)
    run = _execute(rita, _suite(server, retries=4))
    outcomes = _outcomes(run)

    assert sum(flaky.faults.values()) >= 10 and set(flaky.faults) == {"429", "500", "timeout"}
    # Nothing lost, nothing counted twice: the same trials, each once.
    assert outcomes.keys() == reference.keys()
    # Each trial scored what it scores without faults, or was set aside as the provider's
    # fault: never a pass turned into a failure.
    changed = {k: v for k, v in outcomes.items() if v != reference[k]}
    print(f"faults {dict(flaky.faults)} of {flaky.calls} calls; changed {len(changed)}")
    assert set(changed.values()) <= {TrialOutcome.INFRASTRUCTURE}
    if changed:
        assert run.status == RunStatus.ERROR and run.verdict == Verdict.ERROR
    else:
        assert run.verdict == Verdict.PASS


def test_without_retries_the_run_could_not_complete_and_no_trial_is_called_a_failure(
    rita: Operator, server: OpenAIServer
) -> None:
    flaky = Flaky(seed=3)
    server.set_handler(flaky)
    run = _execute(rita, _suite(server, retries=0))
    outcomes = _outcomes(run)

    assert sum(flaky.faults.values()) > 0
    counted = Counter(outcomes.values())
    print(f"faults {dict(flaky.faults)} of {flaky.calls} calls; outcomes {dict(counted)}")
    assert counted[TrialOutcome.INFRASTRUCTURE] > 0
    # A trial the provider broke is never the agent's failure, and with infrastructure
    # errors above the gate's rate the run neither passes nor fails: it could not complete.
    assert counted[TrialOutcome.FAIL] == 0, counted
    assert run.status == RunStatus.ERROR
    assert run.verdict == Verdict.ERROR
    assert run.summary["infrastructure_errors"] == counted[TrialOutcome.INFRASTRUCTURE], run.summary
