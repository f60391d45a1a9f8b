"""`python -m evals.engine` as a person runs it: a whole process, its stderr and exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.domains import get_domain
from evals.engine.cli import main as engine_main
from evals.engine.runner import RunSpec, plan, read_records

ROOT = Path(__file__).resolve().parents[2]


def engine(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "evals.engine", *args],
        cwd=cwd or ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--domain", "tau2_retail", "--personas", "baseline;language=zh-Hans"],
            "tau2_retail has no offline customer",
        ),
        (["--domain", "atlantis"], "Unknown domain 'atlantis'"),
        (["--domain", "retail", "--ks", "1,x"], "--ks takes whole numbers"),
        (["--domain", "retail", "--ks", "0"], "--ks takes numbers of at least 1"),
        (["--domain", "retail", "--trials", "0"], "trials must be at least 1"),
        (["--domain", "retail", "--trials", "many"], "invalid int value: 'many'"),
        (["--domain", "retail", "--personas", "grumpy"], "Unknown persona preset 'grumpy'"),
        (["--domain", "retail", "--tasks", "retail-999"], "has no task 'retail-999'"),
        ([], "the following arguments are required: --domain"),
    ],
)
def test_a_bad_run_command_is_one_line_on_stderr_and_exit_2(tmp_path, args, says):
    out = tmp_path / "run.jsonl"
    done = engine("run", "--out", str(out), *args)

    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # no traceback, no usage block
    assert lines[0].startswith("python -m evals.engine run: ")
    assert says in lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not out.exists()  # nothing was started


def test_an_out_that_cannot_be_written_is_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = engine(
        "run", "--domain", "retail", "--split", "smoke", "--trials", "1",
        "--out", str(blocker / "run.jsonl"),
    )  # fmt: skip

    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def _in_process(capsys, *args: str) -> tuple[int, str, str]:
    code = engine_main(["run", "--domain", "retail", "--trials", "1", "--ks", "1", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_num_tasks_is_a_sample_drawn_from_the_seed_in_the_split_order():
    split = [t.id for t in get_domain("retail").tasks("all")]

    def sample(seed: int) -> list[str]:
        return [u.task_id for u in plan(RunSpec(domains=("retail",), seed=seed, num_tasks=3))]

    assert len(sample(1)) == 3 and len(set(sample(1))) == 3
    assert sample(1) == sample(1)  # deterministic
    assert sample(1) == sorted(sample(1), key=split.index)  # a subset, in the split's order
    assert {tuple(sample(s)) for s in range(6)} != {tuple(sample(1))}  # the seed draws it
    assert len(plan(RunSpec(domains=("retail",), num_tasks=10_000))) == len(split)


@pytest.mark.parametrize(
    ("first", "second", "names"),
    [
        (["--max-turns", "30"], ["--max-turns", "31"], "limits"),
        (["--wall-time", "60"], ["--wall-time", "61"], "limits"),
        (["--max-tool-errors", "3"], ["--max-tool-errors", "4"], "limits"),
        (["--num-tasks", "2"], ["--num-tasks", "3"], "tasks sampled 2, this run's tasks sampled"),
        (["--retries", "1"], ["--retries", "2"], "user simulator parameters"),
    ],
)
def test_a_changed_limit_or_retry_flag_refuses_to_resume(capsys, tmp_path, first, second, names):
    out = tmp_path / "run.jsonl"
    base = ["--out", str(out), "--num-tasks", "2"]
    code, _, err = _in_process(capsys, *base, *first)
    assert code == 0, err
    before = out.read_bytes()

    code, stdout, err = _in_process(capsys, *base, *second)

    assert code == 2 and stdout == ""
    assert names in err and "choose another --out" in err
    assert out.read_bytes() == before


def test_limits_from_flags_end_the_trial(capsys, tmp_path):
    out = tmp_path / "run.jsonl"
    code, _, err = _in_process(
        capsys, "--out", str(out), "--tasks", "retail-000-cancel-email", "--max-turns", "2"
    )
    assert code == 0, err
    (record,) = read_records(out)
    assert record.termination == "max_turns" and record.reward == 0.0


def test_the_json_report_and_the_table_say_how_the_trials_ended(capsys, tmp_path):
    args = ["--tasks", "retail-000-cancel-email,retail-003-return-one-email", "--max-turns", "2"]
    code, stdout, err = _in_process(capsys, "--out", str(tmp_path / "a.jsonl"), *args, "--json")
    assert code == 0, err
    assert json.loads(stdout)["terminations"] == {"max_turns": 2}

    code, stdout, err = _in_process(capsys, "--out", str(tmp_path / "b.jsonl"), *args[:2])
    assert code == 0, err
    assert "ended by: customer stop 2" in stdout
