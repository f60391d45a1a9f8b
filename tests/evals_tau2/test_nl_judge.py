"""τ²'s natural-language assertions: an LLM judge through the model client when the run
configures one (LiteLLM `mock_response` and the local server), "not judged" without one —
never passed —, and a malformed verdict is an infrastructure error, not the agent's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evals.domains import get_domain
from evals.engine.judge import JudgeError, not_judged, parse_verdicts, transcript
from evals.engine.llm import ModelClient, RetryPolicy
from evals.engine.llm.shared import set_default_client
from evals.engine.metrics import render_table, summarise
from evals.engine.oracle import Evaluation, FailureClass, with_nl_verdicts
from evals.engine.runner import MemorySink, RunSpec, plan, run, run_unit
from tests.support.openai_server import text

NL_TASK = "create_task_1_nl_eval"


@pytest.fixture(autouse=True)
def _client():
    set_default_client(ModelClient(retry=RetryPolicy(max_attempts=2, base_delay_s=0.01)))
    yield
    set_default_client(None)


def _verdicts(*met: bool) -> str:
    return json.dumps(
        {
            "verdicts": [
                {"assertion": i, "reasoning": f"reason {i}", "met": m}
                for i, m in enumerate(met, start=1)
            ]
        }
    )


def _nl_run(judge_params: dict[str, Any], judge_model: str = "gpt-4o-mini"):
    spec = RunSpec(
        domains=("tau2_mock",),
        task_ids=(NL_TASK,),
        judge_model=judge_model,
        judge_params=judge_params,
    )
    return spec, run_unit(spec, plan(spec)[0])


def test_the_prose_only_task_runs_without_a_judge_and_is_reported_not_judged():
    task = get_domain("tau2_mock").task(NL_TASK)
    assert task.needs_judge
    assert task.judged_in_prose == ("The task is created successfully", "The user is complimented")
    spec = RunSpec(domains=("tau2_mock",), task_ids=(NL_TASK,), trials=2)
    sink = MemorySink()
    report = run(spec, sink, ks=(1, 2))
    assert [r.failure for r in sink.records] == ["not_judged", "not_judged"]
    assert all(r.reward == 0.0 and not r.infrastructure for r in sink.records)
    assert report.not_judged == 2 and report.evaluated == 0 and 1 not in report.pass_hat
    assert report.short_cells[1] == (f"tau2_mock/{NL_TASK}/baseline",)
    assert "NOT JUDGED: 2 trials" in render_table(report)


def test_met_assertions_pass_with_the_judges_reasoning_on_the_record():
    _, record = _nl_run({"mock_response": _verdicts(True, True), "api_key": "x"})
    assert record.reward == 1.0, (record.failure, record.notes, record.error)
    assert record.components["nl_assertions"] == 1.0
    assert [v["status"] for v in record.nl_assertions] == ["met", "met"]
    assert record.nl_assertions[1]["reasoning"] == "reason 2"
    assert record.models["judge"] == "gpt-4o-mini"
    assert record.usage["judge.calls"] == 1.0


def test_an_unmet_assertion_fails_the_trial_as_an_omission():
    _, record = _nl_run({"mock_response": _verdicts(True, False), "api_key": "x"})
    assert record.reward == 0.0
    assert record.failure == "omission"
    assert "nl assertion not met: The user is complimented" in record.notes
    assert record.nl_assertions[1]["status"] == "not_met"


@pytest.mark.parametrize(
    "answer",
    [
        "The task was created and the user was complimented.",  # prose, not JSON
        _verdicts(True),  # one verdict for two assertions
        json.dumps({"verdicts": [{"met": "yes"}, {"met": True}]}),  # not a boolean
    ],
)
def test_a_malformed_verdict_is_an_infrastructure_error_not_the_agents(answer):
    _, record = _nl_run({"mock_response": answer, "api_key": "x"})
    assert record.infrastructure and not record.simulator_error
    assert record.failure == "infrastructure" and "JudgeError" in record.error
    report = summarise([record], ks=(1,))
    assert report.infrastructure_errors == 1 and report.evaluated == 0
    # Resume runs it again.
    sink = MemorySink()
    sink.append(record)
    assert sink.finished_keys() == set()


def test_a_judge_failing_its_calls_is_an_infrastructure_error():
    _, record = _nl_run({"mock_response": "litellm.RateLimitError", "api_key": "x"})
    assert record.infrastructure and "JudgeError" in record.error


def test_without_a_judge_prose_assertions_are_reported_not_judged_never_passed():
    # τ² retail tasks are judged by the database and natural-language assertions.
    task = next(t for t in get_domain("tau2_retail").tasks() if t.judged_in_prose)
    spec = RunSpec(
        domains=("tau2_retail",),
        task_ids=(task.id,),
        agent="sandbox/fault:do_nothing",
        user="gpt-4o-mini",
        user_params={"mock_response": "Hi, I need help. ###STOP###", "api_key": "x"},
    )
    sink = MemorySink()
    report = run(spec, sink)
    (record,) = sink.records
    assert "nl_assertions" not in record.components
    assert {v["status"] for v in record.nl_assertions} == {"not_judged"}
    assert record.to_dict()["nl_assertions"][0]["status"] == "not_judged"
    # Doing nothing fails the deterministic checks: a failure, whatever the prose says.
    assert record.reward == 0.0 and record.failure != "not_judged"
    assert report.not_judged == 0 and report.evaluated == 1


def test_passing_every_deterministic_check_without_a_judge_is_not_judged_never_a_pass():
    passed = Evaluation(1.0, {"state": 1.0}, FailureClass.NONE)
    unjudged = not_judged(("The user is complimented",))
    out = with_nl_verdicts(passed, unjudged)
    assert out.reward == 0.0 and out.failure is FailureClass.NOT_JUDGED
    failed = Evaluation(0.0, {"state": 0.0}, FailureClass.OMISSION)
    assert with_nl_verdicts(failed, unjudged) == failed


def test_the_judge_reads_only_what_the_agent_saw_at_temperature_zero(openai_server):
    openai_server.script("judge", text(_verdicts(True, True)))
    url = openai_server.url
    _, record = _nl_run({"api_base": url, "api_key": "t"}, judge_model="openai/judge")
    assert record.reward == 1.0, (record.notes, record.error)
    (request,) = openai_server.requests_for("judge")
    assert request["temperature"] == 0
    assert request["response_format"] == {"type": "json_object"}
    prompt = request["messages"][1]["content"]
    assert "assistant calls create_task" in prompt and "Important Meeting" in prompt
    assert "1. The task is created successfully" in prompt
    assert "Mock Domain Policy" not in prompt  # the policy prompt is not the conversation


def test_the_transcript_leaves_out_the_customers_own_tool_traffic():
    spec = RunSpec(domains=("tau2_mock",), task_ids=("update_task_with_user_tools",))
    record = run_unit(spec, plan(spec)[0])
    from evals.engine.messages import Trajectory

    shown = transcript(Trajectory.from_dict(record.trajectory))
    assert "update_task_status" in shown and "Please mark task_1" in shown
    assert "check_notifications" not in shown and "dismiss_notification" not in shown
    assert "notif_1" not in shown


def test_parse_verdicts_accepts_a_fenced_json_answer_and_keeps_the_reasoning():
    fenced = f"```json\n{_verdicts(False)}\n```"
    (v,) = parse_verdicts(fenced, ["A"])
    assert v.status == "not_met" and v.reasoning == "reason 1"
    with pytest.raises(JudgeError):
        parse_verdicts(json.dumps({"verdicts": [{"assertion": 3, "met": True}]}), ["A"])
