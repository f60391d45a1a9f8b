"""The go-live gate's checks: the engine emits a code and values, the command line prints the
engine's English (unchanged, byte for byte), and the backoffice words the same codes in the
reader's language; checks stored before codes existed show their stored message."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from django.utils import translation

from evals.engine.gate import ENGLISH, Check
from evals.gate_words import CHECKS, check_html, check_words

legacy = importlib.import_module("evals.migrations.0007_gate_check_codes")

FAULT = {"domain": "retail", "fault": "wrong_amount", "caught": 9, "applicable": 10}
# One check per code, and the English the gate printed for it before checks had codes.
SAMPLES: dict[str, tuple[Check, str]] = {
    "infrastructure_errors": (
        Check(
            "infrastructure_error_rate",
            False,
            0.075,
            0.02,
            "infrastructure_errors",
            {"errors": 3, "trials": 40, "rate": 0.075, "max": 0.02},
        ),
        "3 of 40 trials hit an infrastructure error (7.5%; at most 2.0% allowed)",
    ),
    "simulator_errors": (
        Check(
            "simulator_error_rate",
            True,
            0.0,
            0.02,
            "simulator_errors",
            {"errors": 0, "trials": 40, "rate": 0.0, "max": 0.02},
        ),
        "0 of 40 trials were spoiled by the user simulator (0.0%; at most 2.0% allowed)",
    ),
    "cells_short": (
        Check(
            "cells_measured",
            False,
            2,
            0,
            "cells_short",
            {"n": 2, "k": 4, "cells": ["retail/t1/calm", "retail/t2/calm"]},
        ),
        "2 cell(s) (domain/task/persona) have fewer than 4 measured trials, so pass^4 cannot "
        "be estimated for them: retail/t1/calm, retail/t2/calm",
    ),
    "cells_measured": (
        Check("cells_measured", True, 0, 0, "cells_measured", {"k": 4}),
        "every cell has at least 4 measured trials",
    ),
    "tasks_unjudged": (
        Check(
            "judged",
            False,
            12,
            0,
            "tasks_unjudged",
            {"n": 12, "tasks": [f"d/t{i}" for i in range(12)]},
        ),
        "12 task(s) depend on natural-language assertions that no judge model judged (configure "
        "one): d/t0, d/t1, d/t2, d/t3, d/t4, d/t5, d/t6, d/t7, d/t8, d/t9 and 2 more",
    ),
    "tasks_judged": (
        Check("judged", True, 0, 0, "tasks_judged", {}),
        "every task was judged on all of its criteria",
    ),
    "lower_bound": (
        Check(
            "pass^4 lower bound · retail",
            False,
            0.41,
            0.5,
            "lower_bound",
            {"domain": "retail", "k": 4, "floor": 0.5, "value": 0.6, "low": 0.41, "high": 0.77},
        ),
        "retail: pass^4 = 0.600 [0.410, 0.770]; the lower 95% bound must be at least 0.500",
    ),
    "lower_bound_unmeasured": (
        Check(
            "pass^4 lower bound · retail",
            False,
            0.0,
            0.5,
            "lower_bound_unmeasured",
            {"domain": "retail", "k": 4, "floor": 0.5},
        ),
        "retail: pass^4 = n/a; the lower 95% bound must be at least 0.500",
    ),
    "persona_floor": (
        Check(
            "pass^4 floor · impatient",
            False,
            0.0,
            0.8,
            "persona_floor",
            {"persona": "impatient", "k": 4, "value": None, "floor": 0.8},
        ),
        "persona impatient: pass^4 = n/a over every domain; the floor is 0.800",
    ),
    "cell_floor": (
        Check(
            "pass^4 floor · retail x calm",
            False,
            0.79,
            0.8,
            "cell_floor",
            {"domain": "retail", "persona": "calm", "k": 4, "value": 0.79, "floor": 0.8},
        ),
        "retail x calm: pass^4 = 0.790; the floor is 0.800",
    ),
    "pass_1": (
        Check("pass^1", True, 0.9, 0.8, "pass_1", {"value": 0.9, "min": 0.8}),
        "pass^1 = 0.900 (at least 0.800)",
    ),
    "pass_1_unmeasured": (
        Check("pass^1", False, 0.0, 0.8, "pass_1_unmeasured", {}),
        "pass^1: no trial was evaluated",
    ),
    "policy_violations": (
        Check("policy_violations", False, 2, 0, "policy_violations", {"n": 2, "max": 0}),
        "2 policy violation(s) (at most 0)",
    ),
    "selftest_missing": (
        Check(
            "oracle_sensitivity",
            False,
            0.0,
            0.99,
            "selftest_missing",
            {"version": "abc123", "domains": ["retail", "airline"]},
        ),
        "No self-test of the oracle at code abc123 covers retail, airline: run "
        "`golive selftest --domains retail,airline`, then the suite again.",
    ),
    "selftest_short": (
        Check(
            "oracle_sensitivity",
            False,
            0.9,
            0.99,
            "selftest_short",
            {
                "ids": "#4, #5",
                "version": "abc123",
                "min": 99.0,
                "short": [FAULT, {"domain": "airline"}],
            },
        ),
        "Self-test #4, #5 at code abc123 falls short: retail wrong_amount caught 9/10; airline: "
        "no fault applies to any task; every applicable fault must be caught on at least 99% "
        "of its tasks.",
    ),
    "selftest_ok": (
        Check(
            "oracle_sensitivity",
            True,
            1.0,
            0.99,
            "selftest_ok",
            {"ids": "#4", "version": "abc123", "min": 99.0, "lowest": FAULT | {"caught": 10}},
        ),
        "Self-test #4 at code abc123: every applicable fault caught on at least 99% of its "
        "tasks (lowest: retail wrong_amount caught 10/10).",
    ),
}


def test_every_code_the_engine_emits_has_a_sample_and_a_phrase() -> None:
    assert set(SAMPLES) == set(ENGLISH) == set(CHECKS)


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_the_command_lines_english_is_unchanged_and_the_pages_english_is_the_same(
    code: str,
) -> None:
    check, printed = SAMPLES[code]
    assert check.english() == printed
    stored = check.to_dict()
    assert stored["message"] == printed and stored["code"] == code
    with translation.override("en"):
        assert check_words(stored) == printed


# Identifiers and data a Chinese reader sees as they are.
DATA = {"x", "retail", "airline", "impatient", "calm", "wrong_amount", "abc123", "pass", "golive"}
DATA |= {"selftest", "domains", "d", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_a_chinese_reader_reads_every_check_in_chinese(code: str) -> None:
    check, printed = SAMPLES[code]
    with translation.override("zh-hans"):
        words = check_words(check.to_dict())
    assert words != printed
    left = set(re.findall(r"[A-Za-z][A-Za-z_0-9]*", words)) - DATA
    assert not left, (code, words)


def test_a_check_stored_before_codes_shows_its_stored_message_escaped() -> None:
    old = {"check": "pass^1", "ok": True, "message": "pass^1 = 1.000 <b>(at least 0.000)</b>"}
    with translation.override("zh-hans"):
        assert check_words(old) == old["message"]
        assert check_html(old) == "pass^1 = 1.000 &lt;b&gt;(at least 0.000)&lt;/b&gt;"
    unknown = {"check": "x", "ok": True, "message": "kept", "code": "later", "params": {}}
    assert check_words(unknown) == "kept"


def test_on_a_page_values_are_escaped_and_versions_and_commands_are_code() -> None:
    check = Check(
        "oracle_sensitivity",
        False,
        0.0,
        0.99,
        "selftest_missing",
        {"version": "<v1>", "domains": ["<i>retail</i>"]},
    )
    with translation.override("zh-hans"):
        html = check_html(check.to_dict())
    assert "<code>&lt;v1&gt;</code>" in html
    assert "<i>" not in html and "&lt;i&gt;retail&lt;/i&gt;" in html
    assert "<code>golive selftest --domains &lt;i&gt;retail&lt;/i&gt;</code>" in html


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_the_migration_reads_codes_back_from_old_english_messages(code: str) -> None:
    check, printed = SAMPLES[code]
    old = {k: v for k, v in check.to_dict().items() if k not in ("code", "params")}
    found = legacy.recognise_check(old)
    if code == "tasks_unjudged":
        # Its list was cut short ("… and 2 more"): it cannot be read back whole, and stays.
        assert found is None
        return
    assert found is not None and found[0] == code
    assert ENGLISH[code](found[1]) == printed


@pytest.mark.parametrize(
    "message",
    [
        "pass^1 = 0.900 (at least 0.800) — edited",
        "每个单元至少有 4 次已测试验",
        "retail: pass^4 = 0.600 [0.410, 0.770]; the lower 95% bound must be at least 0.900",
    ],
)
def test_the_migration_leaves_messages_it_cannot_read_back_exactly(message: str) -> None:
    # The last one names a bound (0.900) that is not the check's stored threshold (0.500).
    old: dict[str, Any] = {"check": "c", "ok": False, "observed": 0.41, "threshold": 0.5}
    assert legacy.recognise_check(old | {"message": message}) is None
