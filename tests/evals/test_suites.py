"""Suites as data: the loader's one-line errors and the gate's arithmetic."""

from __future__ import annotations

import pytest

from evals.engine.metrics import Estimate, summarise
from evals.services import SuiteError, suite_load, suite_override
from evals.services.gate import gate_evaluate
from evals.services.suites import suite_from_mapping
from tests.evals.conftest import suite_dict


def test_the_shipped_suites_load() -> None:
    default = suite_load(name="default")
    assert default.data.agent.model == "sandbox/reference"
    assert default.data.trials >= 2 and len(default.data.personas) >= 3
    assert suite_load(name="smoke").name == "smoke"
    assert suite_load(name="llm-example").data.agent.model != "sandbox/reference"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"trials": 0}, "trials"),
        ({"personas": []}, "personas"),
        ({"personas": ["nobody-like-this"]}, "nobody-like-this"),
        ({"guard_mode": "sometimes"}, "guard_mode"),
        ({"gate": {"pass_hat_1": 1.5}}, "gate.pass_hat_1"),
        ({"surprise": 1}, "surprise"),
        ({"domains": [{"name": "atlantis"}]}, "atlantis"),
        ({"personas": ["baseline", "baseline"]}, "twice"),
    ],
)
def test_a_bad_suite_is_one_line_naming_the_problem(change, fragment) -> None:
    with pytest.raises(SuiteError) as excinfo:
        suite_from_mapping(suite_dict(**change))
    assert fragment in str(excinfo.value) and "\n" not in str(excinfo.value)


def test_suite_names_cannot_escape_the_suites_directory() -> None:
    for name in ("../secrets", "/etc/passwd", "a/b"):
        with pytest.raises(SuiteError):
            suite_load(name=name)


def test_the_hash_follows_the_content() -> None:
    a = suite_from_mapping(suite_dict())
    assert a.digest() == suite_from_mapping(suite_dict()).digest()
    assert a.digest() != suite_override(suite=a, trials=3).digest()


class R:
    def __init__(self, task: str, reward: float, infra: bool = False) -> None:
        self.domain, self.task_id, self.persona = "retail", task, "baseline"
        self.reward, self.failure, self.infrastructure = reward, "" if reward else "omission", infra
        self.agent_turns = self.questions = 0


def _extra(records, violations=0):
    return {
        "infrastructure_error_rate": sum(r.infrastructure for r in records) / len(records),
        "policy_violations": violations,
        # An oracle self-test that caught every fault (its own check: tests/evals/test_selftest.py).
        "selftest": {
            "code_version": "v",
            "domains": {
                "retail": {"selftest": 1, "faults": {"do_nothing": {"caught": 5, "applicable": 5}}}
            },
        },
    }


def test_the_gate_uses_the_lower_bound_of_pass_k_per_domain() -> None:
    suite = suite_from_mapping(suite_dict(gate={"pass_hat_k_lower": 0.6, "pass_hat_1": 0.5}))
    # Half the tasks always pass, half pass one trial in two: pass^2 = 0.5, below 0.6.
    records = [
        R("a", 1),
        R("a", 1),
        R("b", 1),
        R("b", 0),
        R("c", 1),
        R("c", 1),
        R("d", 0),
        R("d", 1),
    ]
    report = summarise(records, ks=(1, 2))
    verdict, checks = gate_evaluate(suite, report, _extra(records))
    assert verdict == "fail"
    assert [c.check for c in checks if not c.ok] == ["pass^2 lower bound · retail"]
    assert isinstance(report.by_domain["retail"][2], Estimate)


def test_one_policy_violation_fails_the_gate_when_none_is_allowed() -> None:
    suite = suite_from_mapping(suite_dict())
    records = [R("a", 1), R("a", 1)]
    verdict, checks = gate_evaluate(
        suite, summarise(records, ks=(1, 2)), _extra(records, violations=1)
    )
    assert verdict == "fail" and [c.check for c in checks if not c.ok] == ["policy_violations"]


def test_infrastructure_errors_above_the_limit_make_the_run_unjudgeable() -> None:
    suite = suite_from_mapping(suite_dict(gate={"max_infrastructure_error_rate": 0.1}))
    records = [R("a", 1), R("a", 1), R("b", 1), R("b", 0, infra=True)]
    verdict, _ = gate_evaluate(suite, summarise(records, ks=(1, 2)), _extra(records))
    assert verdict == "error"
