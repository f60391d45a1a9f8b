# ruff: noqa: RUF001 -- the Chinese expected here is written with full-width punctuation.
"""Why a go-live run stopped reads in the reader's language: the run stores a key and values
(its error_message keeps the English for the API and the command line); runs stored before
keys existed get theirs from migration 0009 when their message is recognised exactly, and a
check whose list was cut short ("… and 3 more") is worded in the reader's language too."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.urls import reverse
from django.utils import translation

from evals import services
from evals.gate_words import check_words
from evals.models import EvalRun, RunStatus
from evals.run_words import ERRORS, error_english, error_html, error_words
from tests.conftest import verified_client

legacy = importlib.import_module("evals.migrations.0009_run_error_keys_data")

pytestmark = pytest.mark.django_db

CHECK = {
    "code": "infrastructure_errors",
    "params": {"errors": 3, "trials": 40, "rate": 0.075, "max": 0.02},
    "message": "3 of 40 trials hit an infrastructure error (7.5%; at most 2.0% allowed)",
}
# Each key with values, its English and its Chinese.
SAMPLES: dict[str, tuple[dict[str, Any], str, str]] = {
    "deadline": (
        {"missing": 1, "expected": 20, "run": 7},
        "Could not complete by its deadline: 1 of 20 trials never reported. Resume it",
        "未能在截止时间前完成：20 个试验中有 1 个始终未报告。请恢复运行",
    ),
    "deadline_resent": (
        {"missing": 2, "expected": 20, "run": 7},
        "trials never reported (sent again once). Resume it",
        "（已重新发送一次）。请恢复运行",
    ),
    "missing": (
        {"missing": 15, "expected": 20},
        "15 of 20 trials are missing; resume the run.",
        "20 个试验中缺少 15 个；请恢复运行。",
    ),
    "not_judged": (
        {"check": CHECK},
        "could not complete: 3 of 40 trials hit an infrastructure error (7.5%; at most 2.0%",
        "无法完成：",
    ),
    "rerun": ({"n": 3}, "Re-running 3 error trial(s).", "正在重新运行 3 个出错试验。"),
    "fingerprint": (
        {"domain": "retail", "worker": "abc", "run": "def"},
        "A worker's fingerprint for retail is abc, the run's is def",
        "某工作进程对 retail 的指纹为 abc",
    ),
    "crashed": (
        {"error": "RuntimeError: boom"},
        "The run stopped: RuntimeError: boom",
        "运行已中止：RuntimeError: boom",
    ),
}


def test_every_error_key_has_a_sample() -> None:
    assert set(SAMPLES) == set(ERRORS)


@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_a_runs_error_reads_in_each_readers_language(key: str) -> None:
    params, english, chinese = SAMPLES[key]
    assert english in error_english(key, params)
    with translation.override("zh-hans"):
        words = error_words(key, params, "legacy")
        assert chinese in words
        assert english not in words
    if key == "not_judged":
        with translation.override("zh-hans"):
            assert check_words(CHECK) in words  # the check worded as the verdict panel does


def test_on_the_page_commands_and_exception_text_are_code_and_values_escaped() -> None:
    with translation.override("zh-hans"):
        html = error_html("deadline", {"missing": 1, "expected": 2, "run": 7}, "")
        assert "<code>python manage.py golive run --resume 7</code>" in html
        assert "<code>POST /api/v1/evals/runs/7/resume</code>" in html
        crashed = error_html("crashed", {"error": "ValueError: <b>"}, "")
        assert "<code>ValueError: &lt;b&gt;</code>" in crashed
    assert error_html("", {}, "worker <lost>") == "worker &lt;lost&gt;"


def test_a_run_without_a_key_or_with_an_unknown_one_shows_its_message() -> None:
    with translation.override("zh-hans"):
        assert error_words("", {}, "worker lost") == "worker lost"
        assert error_words("later", {"x": 1}, "Future") == "Future"
        assert error_words("missing", {}, "Kept") == "Kept"  # values that no longer fit


def test_an_interrupted_run_stores_the_key_and_its_page_reads_in_chinese(
    rita: Any, make_suite: Any
) -> None:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    EvalRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    run = services.eval_run_interrupt(
        run_id=run.pk, reason_key="crashed", reason_params={"error": "KeyboardInterrupt: "}
    )
    assert run.status == RunStatus.FAILED and run.error_key == "crashed"
    assert run.error_message == "The run stopped: KeyboardInterrupt: "
    rita.language = "zh-hans"
    rita.save(update_fields=["language"])
    html = verified_client(rita).get(reverse("evals:run_detail", args=[run.pk])).content.decode()
    assert "运行已中止：<code>KeyboardInterrupt: </code>" in html
    assert "The run stopped" not in html


# -- migration 0009 ------------------------------------------------------------------------

RESUME = (
    "Resume it (finished trials are kept): the Resume button on the run's page, "
    "`python manage.py golive run --resume {pk}`, or POST /api/v1/evals/runs/{pk}/resume."
)


def _old_run(rita: Any, make_suite: Any, message: str, checks: Any = None) -> EvalRun:
    run = services.eval_run_create(actor=rita, suite=make_suite())
    message = message.replace("{resume}", RESUME.format(pk=run.pk))
    EvalRun.objects.filter(pk=run.pk).update(
        status=RunStatus.FAILED, error_message=message, verdict_reasons=checks or []
    )
    run.refresh_from_db()
    return run


def test_the_migration_gives_recognised_old_messages_their_keys(rita: Any, make_suite: Any) -> None:
    failing = CHECK | {"check": "infrastructure_error_rate", "ok": False}
    del failing["code"], failing["params"]  # stored before checks had codes
    recognised = {
        "deadline": "Could not complete by its deadline: 1 of 20 trials never reported. {resume}",
        "deadline_resent": (
            "Could not complete by its deadline: 1 of 20 trials never reported "
            "(sent again once). {resume}"
        ),
        "missing": "15 of 20 trials are missing; resume the run.",
        "rerun": "Re-running 2 error trial(s).",
        "fingerprint": (
            "A worker's fingerprint for retail is 0123456789ab, the run's is ba9876543210: "
            "its code or settings differ."
        ),
        "crashed": "RuntimeError: Crash",
    }
    runs = {key: _old_run(rita, make_suite, message) for key, message in recognised.items()}
    # Stored in the language of the operator who asked for the re-run.
    runs["rerun_zh"] = _old_run(rita, make_suite, "正在重新运行 4 个出错试验。")
    runs["not_judged"] = _old_run(
        rita, make_suite, f"could not complete: {CHECK['message']}", [failing]
    )
    forged = [
        _old_run(rita, make_suite, "worker lost"),
        _old_run(rita, make_suite, "15 of 20 trials are missing."),
        # A hint for another run than this one.
        _old_run(
            rita,
            make_suite,
            "Could not complete by its deadline: 1 of 20 trials never reported. "
            + RESUME.format(pk=999999),
        ),
        _old_run(rita, make_suite, "could not complete: a check it does not have"),
    ]
    legacy.forward(django_apps, None)
    for key, run in runs.items():
        run.refresh_from_db()
        assert run.error_key == key.removesuffix("_zh"), run.error_message
        with translation.override("en"):
            words = error_words(run.error_key, run.error_params, "")
        if key.startswith("deadline"):
            # The page sets the hint's commands as code now; the words are the same.
            assert words.replace("`", "") == run.error_message.replace("`", "")
        elif key == "crashed":
            assert words == f"The run stopped: {run.error_message}"
        elif key != "rerun_zh":
            assert words == run.error_message
    assert runs["rerun_zh"].error_params == {"n": 4}
    assert runs["fingerprint"].error_params["worker"] == "0123456789ab"
    with translation.override("zh-hans"):
        assert error_words("missing", runs["missing"].error_params, "") == (
            "20 个试验中缺少 15 个；请恢复运行。"
        )
    for run in forged:
        run.refresh_from_db()
        assert run.error_key == "" and run.error_params == {}


def test_the_migration_keeps_a_cut_list_and_words_the_rest_in_the_readers_language(
    rita: Any, make_suite: Any
) -> None:
    cells = [f"retail/t{i}/baseline" for i in range(10)]
    message = (
        "13 cell(s) (domain/task/persona) have fewer than 2 measured trials, so pass^2 cannot "
        f"be estimated for them: {', '.join(cells)} and 3 more"
    )
    check = {"check": "cells_measured", "ok": False, "observed": 13, "threshold": 0}
    odd = check | {"message": message.replace("13 cell", "14 cell")}  # 10 + 3 is not 14
    run = _old_run(rita, make_suite, "", [check | {"message": message}, odd])
    legacy.forward(django_apps, None)
    run.refresh_from_db()
    cut, kept = run.verdict_reasons
    assert cut["code"] == "cells_short"
    assert cut["params"] == {"n": 13, "k": 2, "cells": cells, "more": 3}
    assert "code" not in kept
    with translation.override("en"):
        assert check_words(cut) == message
    with translation.override("zh-hans"):
        words = check_words(cut)
        assert words.endswith(f"{cells[-1]}，另有 3 个")
        assert "and 3 more" not in words and "measured trials" not in words
        assert check_words(kept) == kept["message"]
