from dataclasses import dataclass

import pytest

from evals.engine.metrics import bootstrap_ci, pass_at_k, pass_hat_k, summarise


def test_pass_hat_k_is_c_choose_k_over_n_choose_k():
    # 4 trials, 3 successes: pass^1 = 3/4, pass^2 = C(3,2)/C(4,2) = 3/6, pass^4 = 0.
    assert pass_hat_k(4, 3, 1) == 0.75
    assert pass_hat_k(4, 3, 2) == 0.5
    assert pass_hat_k(4, 3, 3) == 0.25
    assert pass_hat_k(4, 3, 4) == 0.0
    assert pass_hat_k(4, 4, 4) == 1.0


def test_pass_at_k_is_one_minus_the_chance_that_all_k_fail():
    # 4 trials, 1 success: pass@2 = 1 - C(3,2)/C(4,2) = 1 - 3/6.
    assert pass_at_k(4, 1, 2) == 0.5
    assert pass_at_k(4, 0, 3) == 0.0
    assert pass_at_k(4, 1, 4) == 1.0


def test_k_above_n_is_an_error():
    with pytest.raises(ValueError, match="at least 5 trials"):
        pass_hat_k(4, 4, 5)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


@dataclass
class R:
    domain: str
    task_id: str
    persona: str
    reward: float
    failure: str = "none"
    infrastructure: bool = False
    agent_turns: int = 3
    questions: int = 1


def test_the_report_averages_over_tasks_and_excludes_infrastructure_errors():
    records = [
        # task a: 3 of 4 pass, plus one infrastructure error that must not count
        *(R("retail", "a", "baseline", 1.0) for _ in range(3)),
        R("retail", "a", "baseline", 0.0, "omission"),
        R("retail", "a", "baseline", 0.0, "infrastructure", infrastructure=True),
        # task b: 1 of 4 pass
        R("retail", "b", "baseline", 1.0),
        *(R("retail", "b", "baseline", 0.0, "user_abandoned") for _ in range(3)),
        # task c: every trial errored
        R("retail", "c", "baseline", 0.0, "infrastructure", infrastructure=True),
    ]
    report = summarise(records, ks=(1, 2, 4))
    assert report.pass_hat[1].value == pytest.approx((0.75 + 0.25) / 2)
    assert report.pass_hat[2].value == pytest.approx((0.5 + 0.0) / 2)
    assert report.pass_hat[4].value == 0.0
    # pass@2: a = 1 - C(1,2)/C(4,2) = 1; b = 1 - C(3,2)/C(4,2) = 0.5
    assert report.pass_at[2].value == pytest.approx((1.0 + 0.5) / 2)
    assert report.infrastructure_errors == 2
    assert report.all_errored == ("retail/c/baseline",)
    assert report.evaluated == 8
    assert report.failures == {"user_abandoned": 3, "omission": 1}
    assert report.agent_turns_per_resolved == 3.0


def test_the_report_breaks_down_by_persona_and_domain():
    records = [
        R("retail", "a", "baseline", 1.0),
        R("retail", "a", "impatient", 0.0, "user_abandoned"),
        R("membership", "m", "baseline", 1.0),
    ]
    report = summarise(records, ks=(1,))
    assert report.by_persona["baseline"][1].value == 1.0
    assert report.by_persona["impatient"][1].value == 0.0
    assert set(report.by_domain) == {"retail", "membership"}
    assert report.failures_by_persona["impatient"] == {"user_abandoned": 1}


def test_the_bootstrap_is_seeded_and_brackets_the_mean():
    values = [1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.25]
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)
    lo, hi = bootstrap_ci(values, seed=3)
    assert lo <= sum(values) / len(values) <= hi and lo < hi


def test_the_termination_breakdown_names_the_limit_that_the_failure_classes_hide():
    from evals.engine.metrics import render_table
    from evals.engine.runner import TrialRecord

    def record(task: str, trial: int, termination: str, failure: str) -> TrialRecord:
        reward = 1.0 if failure == "none" else 0.0
        return TrialRecord("retail", task, "baseline", trial, 0, reward, failure, termination)

    records = [record(f"t{i}", 0, "max_errors", "omission") for i in range(4)]
    records += [record("t9", 0, "user_stop", "none"), record("t8", 0, "infrastructure_error", "")]
    records.append(record("t8", 0, "transfer_to_human", "none"))  # a resume replaced the error

    report = summarise(records, [1])

    assert report.failures == {"omission": 4}  # all that the failure classes say
    assert report.terminations == {"max_errors": 4, "user_stop": 1, "transfer_to_human": 1}
    assert report.to_dict()["terminations"] == report.terminations
    table = render_table(report)
    assert "failures: omission 4" in table
    assert "ended by: tool-error limit 4, customer stop 1, hand-off 1" in table
