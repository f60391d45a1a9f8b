"""`golive selftest`: per domain and fault, caught / applicable, how often the oracle named
the expected class, every miss; stored and shown on the report pages. And the gate's check
that reads it: no self-test at the run's code version, or a fault caught on fewer than 99 %
of the tasks it applies to, fails the run; `golive run` runs a missing one first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evals import services
from evals.domains import get_domain
from evals.engine import faults
from evals.management.cli import output as cli_output
from evals.models import EvalRun, EvalSelftest
from evals.services.suites import suite_from_mapping
from tests.conftest import verified_client
from tests.evals.conftest import golive, store_selftest, suite_dict

pytestmark = pytest.mark.django_db

SMOKE = get_domain("retail").tasks("smoke")


def _judge(actor) -> dict:
    suite = suite_from_mapping(suite_dict())
    run = services.eval_run_create(actor=actor, suite=suite)
    run = services.eval_run_execute(actor=actor, run_id=run.pk)
    return next(c for c in run.verdict_reasons if c["check"] == "oracle_sensitivity") | {
        "verdict": run.verdict
    }


def test_selftest_reports_caught_over_applicable_per_fault_and_stores_it(rita) -> None:
    code, out, _ = golive("selftest", "--domains", "retail", "--split", "smoke", "--as", "rita")
    assert code == 0, out
    selftest = EvalSelftest.objects.latest("id")
    assert selftest.split == "smoke" and selftest.started_by == rita
    results = selftest.results["retail"]
    assert set(results) == set(faults.EXPECTED)
    for fault, r in results.items():
        applies = faults.APPLIES[fault]
        assert r["applicable"] == sum(1 for t in SMOKE if applies(get_domain("retail"), t))
        assert r["caught"] == r["applicable"] and r["missed"] == [], fault
        assert r["named"] <= r["caught"] and r["tasks"] == 5
        assert fault in out
    assert results[faults.DO_NOTHING]["applicable"] == 5
    assert results["stop_after_first"]["applicable"] == 0  # one write per smoke task
    assert "caught/applicable" in out and "Missed: none." in out
    page = verified_client(rita).get(reverse("evals:run_list")).content.decode()
    assert 'data-testid="selftest"' in page and "do_nothing" in page


def test_a_fault_the_oracle_lets_through_exits_1_and_every_miss_is_kept(rita, monkeypatch) -> None:
    # Claim the end-before-user fault applies on retail, where the customer has no part
    # to end before: every smoke task becomes a miss.
    monkeypatch.setitem(faults.APPLIES, "end_before_user", lambda domain, task: True)
    monkeypatch.setattr(cli_output, "MISSES_SHOWN", 2)
    code, out, _ = golive("selftest", "--domains", "retail", "--split", "smoke", "--as", "rita")
    assert code == 1
    r = EvalSelftest.objects.latest("id").results["retail"]["end_before_user"]
    assert r["caught"] == 0 and r["applicable"] == 5
    assert [m["task"] for m in r["missed"]] == [t.id for t in SMOKE]
    assert {m["failure"] for m in r["missed"]} == {"none"}
    assert f"retail end_before_user: {SMOKE[0].id} (none), {SMOKE[1].id} (none) … and 3 more" in out
    assert "Below the gate's 99%: retail end_before_user 0/5." in out


def test_selftest_on_an_unknown_domain_exits_2(rita) -> None:
    code, _, err = golive("selftest", "--domains", "nowhere", "--as", "rita")
    assert code == 2 and "nowhere" in err
    assert EvalSelftest.objects.count() == 1  # the fixture's


def test_the_gate_passes_the_check_on_a_selftest_that_caught_every_fault(rita) -> None:
    check = _judge(rita)
    assert check["ok"] and check["observed"] == 1.0 and check["verdict"] == "pass"
    assert "every applicable fault caught" in check["message"]


def test_without_a_selftest_at_the_runs_code_version_the_gate_fails_and_says_what_to_run(
    rita, selftest_passed
) -> None:
    EvalSelftest.objects.filter(pk=selftest_passed.pk).update(code_version="an-older-commit")
    check = _judge(rita)
    assert not check["ok"] and check["verdict"] == "fail"
    assert "golive selftest --domains retail" in check["message"]
    assert services.code_version() in check["message"]


def test_a_fault_caught_on_fewer_than_99_percent_of_its_tasks_fails_the_gate(rita) -> None:
    store_selftest({("retail", "wrong_item"): (98, 100)})  # newer than the fixture's
    check = _judge(rita)
    assert not check["ok"] and check["observed"] == 0.98 and check["verdict"] == "fail"
    assert "falls short: retail wrong_item caught 98/100;" in check["message"]


def test_a_fault_that_applies_nowhere_is_not_held_against_the_domain(rita) -> None:
    store_selftest({("retail", "end_before_user"): (0, 0)})
    check = _judge(rita)
    assert check["ok"] and "lowest: retail do_nothing caught 1/1" in check["message"]


def test_a_domain_where_no_fault_applies_fails_the_check(rita) -> None:
    store_selftest({("retail", fault): (0, 0) for fault in faults.EXPECTED})
    check = _judge(rita)
    assert not check["ok"] and "retail: no fault applies to any task" in check["message"]


def test_golive_run_runs_a_missing_selftest_first_and_the_gate_reads_it(
    rita, suite_file, selftest_passed
) -> None:
    selftest_passed.delete()
    code, out, _ = golive("run", "--suite", suite_file(), "--as", "rita")
    assert code == 0, out
    selftest = EvalSelftest.objects.get()
    assert selftest.domains == ["retail"] and selftest.split == "all"
    assert selftest.code_version == services.code_version()
    assert "running it first" in out and f"Self-test #{selftest.pk}" in out
    run = EvalRun.objects.get()
    check = next(c for c in run.verdict_reasons if c["check"] == "oracle_sensitivity")
    assert check["ok"] and f"#{selftest.pk}" in check["message"]
    # The next run finds it and does not run it again.
    code, out, _ = golive("run", "--suite", suite_file(), "--as", "rita")
    assert code == 0 and "running it first" not in out
    assert EvalSelftest.objects.count() == 1
