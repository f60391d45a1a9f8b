"""`python -m evals.engine` as a person runs it: a whole process, its stderr and exit status."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
            "the offline customer of tau2_retail does not write zh-Hans",
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
