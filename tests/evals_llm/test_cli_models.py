"""`python -m evals.engine run` pointed at a model server from the command line alone:
--agent-args / --user-args / --judge-args, retries and limits as flags, against the local
OpenAI-compatible test server (no environment variables, no Python)."""

from __future__ import annotations

import json

import pytest

from evals.engine.cli import main as engine_main
from evals.engine.llm import ModelClient
from evals.engine.llm.shared import set_default_client
from evals.engine.runner import read_records
from evals.engine.runner.runfile import run_file_path
from tests.support.openai_server import bad_request, server_error, text

SECRET = "sk-live-DO-NOT-STORE-4242"
TASK = ["--domain", "retail", "--tasks", "retail-000-cancel-email", "--trials", "1"]


@pytest.fixture(autouse=True)
def _fresh_client():
    set_default_client(ModelClient())
    yield
    set_default_client(None)


def _run(capsys, out, *args: str, probe: bool = False) -> tuple[int, str, str]:
    """These tests are about the run itself: the pre-run probe (its own tests below) is off
    unless asked for, so the server sees only the trials' calls."""
    flags = [] if probe else ["--no-probe"]
    code = engine_main(["run", *TASK, "--out", str(out), "--ks", "1", *flags, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_agent_args_reach_the_provider_and_the_key_is_never_stored(capsys, tmp_path, openai_server):
    headers = []

    def answer(body, head):
        headers.append(head.get("Authorization"))
        return text("Could you tell me your email address?")

    openai_server.set_handler(answer)
    out = tmp_path / "run.jsonl"
    agent_args = {"api_base": openai_server.url, "api_key": SECRET, "temperature": 0.3, "seed": 7}

    code, stdout, stderr = _run(
        capsys, out, "--agent", "openai/agent-x", "--agent-args", json.dumps(agent_args),
        "--max-turns", "4", "--json",
    )  # fmt: skip

    assert code == 0, stderr
    sent = openai_server.requests
    assert sent and all(r["model"] == "agent-x" for r in sent)
    assert {(r["temperature"], r["seed"]) for r in sent} == {(0.3, 7)}
    assert set(headers) == {f"Bearer {SECRET}"}
    (record,) = read_records(out)
    assert record.termination == "max_turns" and record.usage["agent.calls"] == len(sent)
    stored = out.read_bytes() + run_file_path(out).read_bytes()
    assert SECRET.encode() not in stored
    assert SECRET not in stdout + stderr
    fields = json.loads(run_file_path(out).read_bytes())["fields"]
    assert fields["agent_params"] == {"api_base": openai_server.url, "seed": 7, "temperature": 0.3}


def test_a_changed_agent_arg_refuses_to_resume_the_run(capsys, tmp_path, openai_server):
    openai_server.set_default(text("Your email, please?"))
    out = tmp_path / "run.jsonl"
    base = ["--agent", "openai/agent-x", "--max-turns", "2"]
    args = {"api_base": openai_server.url, "api_key": "k"}
    assert _run(capsys, out, *base, "--agent-args", json.dumps({**args, "temperature": 0}))[0] == 0

    code, stdout, stderr = _run(
        capsys, out, *base, "--agent-args", json.dumps({**args, "temperature": 1})
    )

    assert code == 2 and stdout == ""
    assert '"temperature":0}, this run\'s agent parameters are' in stderr
    # the key alone changing is not a different run: it resumes (nothing left to run)
    code, _, stderr = _run(
        capsys, out, *base, "--agent-args", json.dumps({**args, "api_key": "k2", "temperature": 0})
    )
    assert code == 0, stderr


def test_user_args_drive_an_llm_customer(capsys, tmp_path, openai_server):
    openai_server.script("customer-y", text("Hi, I want to cancel an order. ###STOP###"))
    out = tmp_path / "run.jsonl"
    user_args = {"api_base": openai_server.url, "api_key": SECRET, "max_tokens": 64}

    code, _, stderr = _run(
        capsys, out, "--user", "openai/customer-y", "--user-args", json.dumps(user_args)
    )

    assert code == 0, stderr
    (sent,) = openai_server.requests_for("customer-y")
    assert sent["max_tokens"] == 64
    (record,) = read_records(out)
    assert record.models["user"] == "customer-y" and record.termination == "user_stop"
    assert SECRET.encode() not in out.read_bytes() + run_file_path(out).read_bytes()


def test_retries_flag_bounds_the_attempts_of_a_failing_provider(capsys, tmp_path, openai_server):
    openai_server.script("agent-r", server_error(), server_error(), text("Your email?"))
    agent = ["--agent", "openai/agent-r", "--max-turns", "2", "--retry-delay", "0"]
    args = json.dumps({"api_base": openai_server.url, "api_key": "k"})
    out = tmp_path / "none.jsonl"

    code, _, _ = _run(capsys, out, *agent, "--agent-args", args, "--retries", "0")

    assert code == 0
    (record,) = read_records(out)
    assert record.termination == "infrastructure_error"  # one attempt, no retry
    assert len(openai_server.requests_for("agent-r")) == 1

    out = tmp_path / "two.jsonl"
    code, _, _ = _run(capsys, out, *agent, "--agent-args", args, "--retries", "2")
    (record,) = read_records(out)
    assert record.termination == "max_turns"  # the second error was retried, then answered
    assert len(openai_server.requests_for("agent-r")) >= 3
    assert record.usage["agent.retries"] == 1
    fields = json.loads(run_file_path(out).read_bytes())["fields"]
    assert fields["agent_params"]["retries"] == 2


def test_judge_args_are_stored_without_their_key(capsys, tmp_path):
    out = tmp_path / "run.jsonl"
    judge = {"api_base": "http://127.0.0.1:9/v1", "api_key": SECRET, "max_tokens": 300}

    code, _, _ = _run(
        capsys, out, "--judge-model", "openai/judge", "--judge-args", json.dumps(judge)
    )

    assert code == 0
    fields = json.loads(run_file_path(out).read_bytes())["fields"]
    assert fields["judge_params"] == {"api_base": "http://127.0.0.1:9/v1", "max_tokens": 300}
    assert SECRET.encode() not in out.read_bytes() + run_file_path(out).read_bytes()


# -- the pre-run probe: a model that would not answer never starts a run ------------------


def test_a_made_up_offline_name_is_refused_before_any_trial(capsys, tmp_path):
    out = tmp_path / "run.jsonl"

    code, stdout, stderr = _run(capsys, out, "--agent", "sandbox/referense", probe=True)

    assert code == 2 and stdout == ""
    assert len(stderr.strip().splitlines()) == 1
    assert "agent 'sandbox/referense': no such offline model" in stderr
    assert "sandbox/reference" in stderr  # the names it could have meant
    assert not out.exists()


def test_a_model_the_provider_refuses_is_refused_with_the_providers_words(
    capsys, tmp_path, openai_server
):
    openai_server.set_default(bad_request("The model `gpt-9` does not exist"))
    args = json.dumps({"api_base": openai_server.url, "api_key": "k"})
    out = tmp_path / "run.jsonl"

    code, _, stderr = _run(
        capsys, out, "--agent", "openai/gpt-9", "--agent-args", args, "--retries", "0", probe=True
    )

    assert code == 2 and "agent 'openai/gpt-9'" in stderr and "does not exist" in stderr
    assert "--no-probe" in stderr  # how to start anyway
    assert len(openai_server.requests) == 1  # one probe call, no trial
    assert not out.exists()


def test_an_unreachable_customer_model_is_named_as_the_customer(capsys, tmp_path):
    args = json.dumps({"api_base": "http://127.0.0.1:9/v1", "api_key": "k", "retries": 0})
    out = tmp_path / "run.jsonl"

    code, _, stderr = _run(
        capsys, out, "--user", "openai/customer", "--user-args", args, probe=True
    )

    assert code == 2 and "user 'openai/customer'" in stderr
    assert not out.exists()


def test_a_model_that_answers_passes_the_probe_and_runs(capsys, tmp_path, openai_server):
    openai_server.set_default(text("Could you tell me your email address?"))
    args = json.dumps({"api_base": openai_server.url, "api_key": "k"})
    out = tmp_path / "run.jsonl"

    code, _, stderr = _run(
        capsys, out, "--agent", "openai/agent-x", "--agent-args", args, "--max-turns", "2",
        probe=True,
    )  # fmt: skip

    assert code == 0, stderr
    (record,) = read_records(out)
    # the probe's one call is not the trial's: the record counts only the trial's own
    assert record.usage["agent.calls"] == len(openai_server.requests) - 1


def test_no_probe_starts_a_run_the_probe_would_refuse(capsys, tmp_path):
    out = tmp_path / "run.jsonl"
    args = json.dumps({"api_base": "http://127.0.0.1:9/v1", "api_key": "k", "retries": 0})

    code, _, _ = _run(capsys, out, "--agent", "openai/nowhere", "--agent-args", args)

    assert code == 0
    (record,) = read_records(out)
    assert record.termination == "infrastructure_error"


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--agent-args", "{temperature: 0}", "--agent-args is not valid JSON"),
        ("--user-args", "[1, 2]", "--user-args takes a JSON object"),
        ("--judge-args", '"x"', "--judge-args takes a JSON object"),
        ("--retries", "-1", "takes at least 0"),
        ("--max-turns", "0", "takes at least 1"),
        ("--wall-time", "soon", "invalid float value: 'soon'"),
    ],
)
def test_a_malformed_model_or_limit_flag_is_one_line_and_exit_2(
    capsys, tmp_path, flag, value, says
):
    with pytest.raises(SystemExit) as exit_:
        engine_main(["run", *TASK, "--out", str(tmp_path / "x.jsonl"), flag, value])
    err = capsys.readouterr().err

    assert exit_.value.code == 2
    assert len(err.strip().splitlines()) == 1 and says in err and flag in err
    assert not (tmp_path / "x.jsonl").exists()


def test_each_message_records_its_time_latency_tokens_and_cost(capsys, tmp_path, openai_server):
    openai_server.set_default(text("Could you tell me your email address?", prompt_tokens=50))
    out = tmp_path / "run.jsonl"
    agent_args = {
        "api_base": openai_server.url,
        "api_key": "k",
        "input_cost_per_token": 0.001,
        "output_cost_per_token": 0.002,
    }
    code, _, stderr = _run(
        capsys, out, "--agent", "openai/agent-x", "--agent-args", json.dumps(agent_args),
        "--max-turns", "4",
    )  # fmt: skip
    assert code == 0, stderr

    (record,) = read_records(out)
    messages = record.trajectory["messages"]
    turns = record.trajectory["message_records"]
    agent = [t for t in turns if t["actor"] == "agent"]
    user = [t for t in turns if t["actor"] == "user"]
    assert len(agent) == record.usage["agent.calls"] == len(openai_server.requests)
    for t in agent:
        assert messages[t["message"]]["role"] == "assistant"
        assert messages[t["message"]]["content"] == "Could you tell me your email address?"
        (call,) = t["calls"]
        assert (
            (t["tokens_in"], t["tokens_out"]) == (50, 7) == (call["tokens_in"], call["tokens_out"])
        )
        assert t["cost_usd"] == pytest.approx(50 * 0.001 + 7 * 0.002)
        assert 0 < call["latency_s"] <= t["seconds"]
        assert t["at"] <= call["at"]
    for t in user:  # the offline customer: timed, no model call
        assert messages[t["message"]]["role"] == "user" and t["calls"] == []
    indices = [t["message"] for t in turns]
    assert indices == sorted(indices) and len(set(indices)) == len(indices)
    ats = [t["at"] for t in turns]
    assert ats == sorted(ats)  # conversation order is time order
    assert sum(t["cost_usd"] for t in turns) == pytest.approx(record.usage["agent.cost_usd"])


def test_evaluate_regrades_an_llm_run_with_the_server_gone(capsys, tmp_path, openai_server):
    openai_server.set_default(text("Could you tell me your email address?"))
    out = tmp_path / "run.jsonl"
    args = json.dumps({"api_base": openai_server.url, "api_key": SECRET})
    code, stdout, _ = _run(
        capsys, out, "--agent", "openai/agent-x", "--agent-args", args, "--max-turns", "4", "--json"
    )
    assert code == 0
    openai_server.stop()
    served = len(openai_server.requests)

    from tests.evals_engine.test_evaluate import NoModel

    set_default_client(NoModel())
    code = engine_main(["evaluate", str(out), "--json", "--ks", "1"])
    again = capsys.readouterr().out

    assert code == 0
    assert json.loads(again) == json.loads(stdout)
    assert len(openai_server.requests) == served
