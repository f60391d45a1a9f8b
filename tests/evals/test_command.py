"""`golive run` exit codes (0 pass, 1 fail, 2 could not complete), --plan, --json, --as,
and list / show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import services
from evals.models import EvalRun, RunStatus, TrialResult
from evals.services import suite_load
from identity.models import AuditEvent
from tests.evals.conftest import DOWN, golive

pytestmark = pytest.mark.django_db


def test_a_passing_gate_exits_0_and_records_the_operator_named_with_as(
    suite_file, rita, tmp_path: Path
) -> None:
    out_json = tmp_path / "run.json"
    code, out, _ = golive("run", "--suite", suite_file(), "--as", "rita", "--json", str(out_json))
    assert code == 0, out
    run = EvalRun.objects.get()
    assert run.status == RunStatus.COMPLETED and run.verdict == "pass"
    assert run.started_by == rita
    assert TrialResult.objects.filter(run=run).count() == run.total_units == 20
    assert "Verdict: PASS" in out and f"/evals/{run.pk}/" in out
    data = json.loads(out_json.read_text())
    assert data["exit_code"] == 0 and data["verdict"] == "pass" and data["trials"] == 20
    actions = list(
        AuditEvent.objects.filter(target_id=str(run.pk)).values_list("action", flat=True)
    )
    assert actions == ["evals.run.create", "evals.run.execute", "evals.run.finish"]


def test_a_failing_gate_exits_1_and_names_the_failed_check(suite_file) -> None:
    path = suite_file(agent={"model": "sandbox/fault:do_nothing"})
    code, out, _ = golive("run", "--suite", path)
    assert code == 1
    run = EvalRun.objects.get()
    assert run.status == RunStatus.COMPLETED and run.verdict == "fail"
    failed = [c["check"] for c in run.verdict_reasons if not c["ok"]]
    assert "pass^1" in failed
    assert "[FAIL] pass^1" in out


def test_too_many_infrastructure_errors_exit_2_with_a_one_line_reason(suite_file) -> None:
    code, _, err = golive("run", "--suite", suite_file(agent={"model": DOWN}))
    assert code == 2
    run = EvalRun.objects.get()
    assert run.status == RunStatus.ERROR and run.verdict == "error"
    assert TrialResult.objects.filter(run=run, infrastructure=True).count() == 20
    assert "infrastructure error" in err and "\n" not in err.strip()


def test_a_bad_suite_exits_2_naming_the_field(suite_file) -> None:
    code, _, err = golive("run", "--suite", suite_file(trials=0))
    assert code == 2
    assert "trials" in err and "\n" not in err.strip()
    assert not EvalRun.objects.exists()


def test_an_unknown_domain_or_suite_exits_2(suite_file) -> None:
    code, _, err = golive("run", "--suite", suite_file(domains=[{"name": "nowhere"}]))
    assert code == 2 and "nowhere" in err
    code, _, err = golive("run", "--suite", "no-such-suite")
    assert code == 2 and "no suite" in err


def test_an_unknown_operator_in_as_exits_2(suite_file) -> None:
    code, _, err = golive("run", "--suite", suite_file(), "--as", "mallory")
    assert code == 2 and "mallory" in err


def test_a_human_without_the_release_manager_role_cannot_start_a_run(suite_file, alice) -> None:
    code, _, err = golive("run", "--suite", suite_file(), "--as", "alice")
    assert code == 2 and "release manager" in err
    assert not EvalRun.objects.exists()


def test_without_as_the_run_is_recorded_as_the_cli_service_principal(suite_file) -> None:
    code, _, _ = golive("run", "--suite", suite_file())
    assert code == 0
    run = EvalRun.objects.get()
    assert run.started_by.username == "golive-cli" and run.started_by.is_service_principal
    create = AuditEvent.objects.get(action="evals.run.create", target_id=str(run.pk))
    assert create.after["origin"].startswith("cli:")


def test_overrides_change_the_frozen_suite_and_its_hash(suite_file) -> None:
    path = suite_file()
    golive("run", "--suite", path)
    golive("run", "--suite", path, "--trials", "3", "--personas", "baseline")
    first, second = EvalRun.objects.order_by("pk")
    assert second.trials_per_task == 3 and second.total_units == 15
    assert second.suite_snapshot["personas"] == ["baseline"]
    assert first.suite_hash != second.suite_hash


def test_plan_counts_trials_and_runs_nothing(suite_file) -> None:
    code, out, _ = golive("run", "--suite", suite_file(), "--plan")
    assert code == 0
    assert "20 trials" in out and "no LLM calls" in out
    assert not EvalRun.objects.exists()


def test_plan_estimates_calls_tokens_and_cost_for_llm_models(suite_file) -> None:
    # `--plan` first checks each model with one call: LiteLLM's mock answers it, offline.
    model = {"model": "gpt-4.1-mini", "params": {"mock_response": "OK"}}
    path = suite_file(agent=model, user=model)
    code, out, _ = golive("run", "--suite", path, "--plan")
    assert code == 0
    agent_line = next(line for line in out.splitlines() if line.strip().startswith("agent"))
    assert "calls" in agent_line and "tokens in" in agent_line and "$" in agent_line


def test_the_default_suite_loads_and_plans(rita) -> None:
    code, out, _ = golive("run", "--suite", "default", "--plan")
    assert code == 0 and "retail" in out


def test_list_and_show_describe_stored_runs(suite_file) -> None:
    golive("run", "--suite", suite_file())
    run = EvalRun.objects.get()
    code, out, _ = golive("list")
    assert code == 0 and f"#{run.pk}" in out and "pass" in out
    code, out, _ = golive("show", str(run.pk))
    assert code == 0 and "Verdict: PASS" in out
    code, out, _ = golive("show", str(run.pk), "--json")
    assert json.loads(out)["id"] == run.pk
    code, _, err = golive("show", "999")
    assert code == 2 and "no run" in err


def test_resume_with_another_agent_exits_2_naming_both_agents(suite_file, rita) -> None:
    run = services.eval_run_create(actor=rita, suite=suite_load(name=suite_file(), allow_path=True))
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    code, _, err = golive(
        "run", "--resume", str(run.pk), "--agent", "sandbox/fault:do_nothing", "--as", "rita"
    )
    assert code == 2
    assert err.strip() == (
        f"golive: Run #{run.pk} holds trials of agent sandbox/reference, this resume's agent "
        "is sandbox/fault:do_nothing: start a new run instead."
    )
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and not TrialResult.objects.filter(run=run).exists()


def test_resume_naming_the_runs_own_agent_completes_it(suite_file, rita) -> None:
    run = services.eval_run_create(actor=rita, suite=suite_load(name=suite_file(), allow_path=True))
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    code, out, _ = golive(
        "run", "--resume", str(run.pk), "--agent", "sandbox/reference", "--as", "rita"
    )
    assert code == 0, out
    assert TrialResult.objects.filter(run=run).count() == 20
