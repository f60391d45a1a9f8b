"""`golive import FILE` and the upload form: a JSON-lines run of `python -m evals.engine run`
becomes a backoffice run whose trials open in the trial viewer; a malformed file is refused
with the line that is wrong and leaves nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evals.engine.cli import main as engine_main
from evals.models import EvalRun, TrialResult
from identity.models import AuditEvent
from tests.conftest import verified_client
from tests.evals.conftest import golive

pytestmark = pytest.mark.django_db

ENGINE = ["--domain", "retail", "--split", "smoke", "--trials", "2"]
ENGINE += ["--personas", "baseline,impatient", "--agent", "sandbox/fault:skip_confirmation"]


def engine_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, dict]:
    out = tmp_path / "run.jsonl"
    assert engine_main(["run", *ENGINE, "--out", str(out), "--json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    return out, report


def test_an_engine_run_imports_as_a_run_with_the_same_figures(tmp_path, capsys, rita) -> None:
    path, report = engine_run(tmp_path, capsys)
    lines = path.read_text().splitlines()
    code, out, err = golive("import", str(path), "--as", rita.username)
    assert code == 0, err
    run = EvalRun.objects.get()
    assert f"Imported {len(lines)} trials from {path} as run #{run.pk}" in out
    assert run.total_units == len(lines) == TrialResult.objects.filter(run=run).count()
    assert run.status == "completed" and run.verdict == "" and run.started_by == rita
    assert run.summary["imported"]["trials"] == len(lines)
    # The same pass^k as the engine printed, and the same trajectories.
    ours = run.summary["report"]["pass_hat"]
    assert {k: round(v["value"], 6) for k, v in ours.items()} == {
        k: round(v["value"], 6) for k, v in report["pass_hat"].items()
    }
    first = json.loads(lines[0])
    stored = TrialResult.objects.get(
        run=run, task_id=first["task_id"], persona=first["persona"], trial=first["trial"]
    )
    assert stored.trajectory == first["trajectory"]
    assert AuditEvent.objects.filter(action="evals.run.import").count() == 1
    # The trial viewer opens each of them.
    client = verified_client(rita)
    page = client.get(reverse("evals:trial_detail", args=[run.pk, stored.pk]))
    assert page.status_code == 200 and first["task_id"] in page.content.decode()


def test_the_last_line_of_a_unit_wins_as_the_engine_reads_it(tmp_path, capsys, rita) -> None:
    path, _ = engine_run(tmp_path, capsys)
    lines = path.read_text().splitlines()
    again = json.loads(lines[0])
    again["reward"], again["failure"] = 1.0, ""
    path.write_text("\n".join([*lines, json.dumps(again)]) + "\n")
    assert golive("import", str(path), "--as", rita.username)[0] == 0
    run = EvalRun.objects.get()
    assert run.total_units == len(lines)
    row = TrialResult.objects.get(
        run=run, task_id=again["task_id"], persona=again["persona"], trial=again["trial"]
    )
    assert row.reward == 1.0


def _broken(lines: list[str], how: str) -> list[str]:
    first = json.loads(lines[0])
    if how == "not json":
        return [lines[0], lines[1], '{"key": "retail/x", "reward": 1.0', *lines[3:]]
    if how == "not an object":
        return [lines[0], "[1, 2, 3]"]
    if how == "missing field":
        del first["termination"]
        return [lines[1], json.dumps(first)]
    if how == "two runs":
        first["fingerprint"] = "0" * 64
        first["trial"] = 9
        return [*lines, json.dumps(first)]
    if how == "unknown domain":
        first["domain"] = "no_such_domain"
        return [json.dumps(first)]
    if how == "empty":
        return ["", "  "]
    raise AssertionError(how)


@pytest.mark.parametrize(
    ("how", "says"),
    [
        ("not json", "line 3 is not JSON"),
        ("not an object", "line 2 is not a trial record"),
        ("missing field", "line 2 is not a trial record of `python -m evals.engine run`"),
        ("two runs", "mixes trials of different runs in retail"),
        ("unknown domain", "domain 'no_such_domain' is not available"),
        ("empty", "holds no trial record"),
    ],
)
def test_a_malformed_file_is_one_line_exit_2_and_nothing_is_imported(
    tmp_path, capsys, rita, how, says
) -> None:
    path, _ = engine_run(tmp_path, capsys)
    path.write_text("\n".join(_broken(path.read_text().splitlines(), how)) + "\n")
    code, _, err = golive("import", str(path), "--as", rita.username)
    assert code == 2
    assert says in err and "nothing was imported" in err and len(err.strip().splitlines()) == 1
    assert not EvalRun.objects.exists() and not TrialResult.objects.exists()
    assert not AuditEvent.objects.filter(action="evals.run.import").exists()


def test_a_missing_file_is_one_line(tmp_path, rita) -> None:
    code, _, err = golive("import", str(tmp_path / "nope.jsonl"), "--as", rita.username)
    assert code == 2 and "No such file" in err


def test_the_upload_form_imports_for_a_release_manager_and_refuses_others(
    tmp_path, capsys, rita, audrey, alice
) -> None:
    path, _ = engine_run(tmp_path, capsys)
    data = path.read_bytes()
    page = verified_client(rita).post(
        reverse("evals:run_import"), {"file": SimpleUploadedFile("run.jsonl", data)}
    )
    run = EvalRun.objects.get()
    assert page.status_code == 302 and page["Location"] == reverse(
        "evals:run_detail", args=[run.pk]
    )
    # An auditor and an agent operator cannot import (the page is not advertised to them).
    for outsider in (audrey, alice):
        page = verified_client(outsider).post(
            reverse("evals:run_import"), {"file": SimpleUploadedFile("run.jsonl", data)}
        )
        assert page.status_code == 404
    assert EvalRun.objects.count() == 1
