"""`python -m evals.engine evaluate RUN.jsonl`: the stored run graded again from its
trajectories — the same report as the run, no model called, and a stored record that lies
about its outcome or a trajectory that no longer replays is caught."""

from __future__ import annotations

import json

import pytest

from evals.engine.cli import main as engine_main
from evals.engine.llm import ModelClient
from evals.engine.llm.shared import set_default_client
from evals.engine.runner import read_records


class NoModel(ModelClient):
    """A model client that fails the test if anything asks it for a completion."""

    def complete(self, *args, **kwargs):
        raise AssertionError("evaluate called a model")

    async def acomplete(self, *args, **kwargs):
        raise AssertionError("evaluate called a model")


@pytest.fixture
def no_model(monkeypatch):
    import litellm

    def refuse(*args, **kwargs):
        raise AssertionError("evaluate called LiteLLM")

    monkeypatch.setattr(litellm, "completion", refuse)
    monkeypatch.setattr(litellm, "acompletion", refuse)
    set_default_client(NoModel())
    yield
    set_default_client(None)


def _main(capsys, *args: str) -> tuple[int, str, str]:
    code = engine_main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _run(capsys, out, agent: str = "sandbox/reference", *extra: str) -> dict:
    code, stdout, err = _main(
        capsys, "run", "--domain", "retail", "--split", "smoke", "--trials", "2",
        "--agent", agent, "--out", str(out), "--json", "--seed", "3", *extra,
    )  # fmt: skip
    assert code == 0, err
    return json.loads(stdout)


@pytest.mark.parametrize(
    "agent", ["sandbox/reference", "sandbox/fault:wrong_item", "sandbox/fault:do_nothing"]
)
def test_evaluate_gives_the_runs_report_without_calling_a_model(capsys, tmp_path, agent, no_model):
    out = tmp_path / "run.jsonl"
    report = _run(capsys, out, agent)

    code, stdout, err = _main(capsys, "evaluate", str(out), "--json")

    assert code == 0, err
    assert json.loads(stdout) == report
    code, table, _ = _main(capsys, "evaluate", str(out))
    assert code == 0 and "pass^1" in table and "ended by:" in table


def test_a_stored_pass_whose_trajectory_shows_no_write_is_graded_a_failure(
    capsys, tmp_path, no_model
):
    honest = tmp_path / "honest.jsonl"
    _run(capsys, honest, "sandbox/fault:do_nothing")
    forged = tmp_path / "forged.jsonl"
    lines = []
    for line in honest.read_text().splitlines():
        data = json.loads(line)
        data.update(reward=1.0, failure="none", components={"state": 1.0})  # claims a pass
        lines.append(json.dumps(data))
    forged.write_text("\n".join(lines) + "\n")

    code, stdout, _ = _main(capsys, "evaluate", str(forged), "--json", "--out", str(tmp_path / "r"))

    assert code == 0
    assert json.loads(stdout)["pass_hat"]["1"]["value"] == 0.0
    assert all(r.reward == 0.0 for r in read_records(tmp_path / "r"))


def test_a_trajectory_whose_tool_results_were_edited_does_not_replay(capsys, tmp_path, no_model):
    out = tmp_path / "run.jsonl"
    _run(capsys, out)
    lines = out.read_text().splitlines()
    data = json.loads(lines[0])
    tool = next(m for m in data["trajectory"]["messages"] if m["role"] == "tool")
    tool["content"] = '{"status": "refunded", "amount": 1000000}'
    out.write_text("\n".join([json.dumps(data), *lines[1:]]) + "\n")

    code, stdout, err = _main(capsys, "evaluate", str(out))

    assert code == 2 and stdout == ""
    assert len(err.strip().splitlines()) == 1
    assert f"trial {data['key']} does not replay" in err


def test_a_run_stored_without_trajectories_cannot_be_regraded(capsys, tmp_path, no_model):
    out = tmp_path / "run.jsonl"
    _run(capsys, out, "sandbox/reference", "--no-trajectory")

    code, _, err = _main(capsys, "evaluate", str(out))

    assert code == 2 and "stored without its trajectory" in err
    assert _main(capsys, "evaluate", str(tmp_path / "none.jsonl"))[0] == 2


def test_a_task_that_opens_with_history_replays_from_the_trials_own_messages(
    capsys, tmp_path, no_model
):
    out = tmp_path / "run.jsonl"
    code, stdout, err = _main(
        capsys, "run", "--domain", "tau2_mock", "--tasks", "update_task_with_message_history",
        "--trials", "1", "--ks", "1", "--out", str(out), "--json",
    )  # fmt: skip
    assert code == 0, err
    (record,) = read_records(out)
    assert any(m["role"] == "tool" for m in record.trajectory["messages"][:5])  # history acts

    code, again, err = _main(capsys, "evaluate", str(out), "--json", "--ks", "1")

    assert code == 0, err
    assert json.loads(again) == json.loads(stdout)
