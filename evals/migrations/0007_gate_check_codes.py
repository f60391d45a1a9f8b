"""Go-live checks stored before checks had codes: give each check whose stored English this
recognises its code and parameters, so the run page words it in the reader's language. A
check is converted only when the engine's English for the parameters read back from it
(`evals.engine.gate.ENGLISH`, the command line's words) is exactly its stored message; any
other check keeps its message, shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.db import migrations

from evals.engine.gate import ENGLISH

Params = dict[str, Any]
NUMBER = r"[\d.]+"
NAME = r"[^\s;:,]+"


def _rates(m: re.Match[str], check: dict[str, Any]) -> Params:
    return {
        "errors": int(m["errors"]),
        "trials": int(m["trials"]),
        "rate": check["observed"],
        "max": check["threshold"],
    }


def _names(text: str) -> list[str] | None:
    # A list cut short ("… and 3 more") cannot be read back whole.
    return None if re.search(r" and \d+ more$", text) else text.split(", ")


def _estimate(value: str) -> float | None:
    return None if value == "n/a" else float(value)


def _fault(text: str) -> dict[str, Any] | None:
    none = re.fullmatch(rf"(?P<domain>{NAME}): no fault applies to any task", text)
    if none:
        return {"domain": none["domain"]}
    m = re.fullmatch(
        rf"(?P<domain>{NAME}) (?P<fault>{NAME}) caught (?P<caught>\d+)/(?P<applicable>\d+)", text
    )
    if m is None:
        return None
    return {
        "domain": m["domain"],
        "fault": m["fault"],
        "caught": int(m["caught"]),
        "applicable": int(m["applicable"]),
    }


def _selftest(m: re.Match[str], check: dict[str, Any]) -> Params | None:
    params: Params = {"ids": m["ids"], "version": m["version"], "min": float(m["min"])}
    if "short" in m.groupdict():
        items = [_fault(t) for t in m["short"].split("; ")]
        if any(i is None for i in items):
            return None
        return params | {"short": items}
    lowest = None if m["lowest"] == "-" else _fault(m["lowest"])
    if m["lowest"] != "-" and lowest is None:
        return None
    return params | {"lowest": lowest}


SELFTEST = r"Self-test (?P<ids>#[\d, #]+) at code (?P<version>\S*)"
READERS: dict[str, tuple[str, Callable[[re.Match[str], dict[str, Any]], Params | None]]] = {
    "infrastructure_errors": (
        r"(?P<errors>\d+) of (?P<trials>\d+) trials hit an infrastructure error \(.*\)",
        _rates,
    ),
    "simulator_errors": (
        r"(?P<errors>\d+) of (?P<trials>\d+) trials were spoiled by the user simulator \(.*\)",
        _rates,
    ),
    "cells_measured": (
        r"every cell has at least (?P<k>\d+) measured trials",
        lambda m, c: {"k": int(m["k"])},
    ),
    "cells_short": (
        r"(?P<n>\d+) cell\(s\) \(domain/task/persona\) have fewer than (?P<k>\d+) measured "
        r"trials, so pass\^\d+ cannot be estimated for them: (?P<cells>.+)",
        lambda m, c: (
            None
            if _names(m["cells"]) is None
            else {"n": int(m["n"]), "k": int(m["k"]), "cells": _names(m["cells"])}
        ),
    ),
    "tasks_judged": (r"every task was judged on all of its criteria", lambda m, c: {}),
    "tasks_unjudged": (
        r"(?P<n>\d+) task\(s\) depend on natural-language assertions that no judge model "
        r"judged \(configure one\): (?P<tasks>.+)",
        lambda m, c: (
            None
            if _names(m["tasks"]) is None
            else {"n": int(m["n"]), "tasks": _names(m["tasks"])}
        ),
    ),
    "lower_bound": (
        rf"(?P<domain>.+): pass\^(?P<k>\d+) = (?P<value>{NUMBER}) \[{NUMBER}, (?P<high>{NUMBER})\]; "
        rf"the lower 95% bound must be at least {NUMBER}",
        lambda m, c: {
            "domain": m["domain"],
            "k": int(m["k"]),
            "value": float(m["value"]),
            "low": c["observed"],
            "high": float(m["high"]),
            "floor": c["threshold"],
        },
    ),
    "lower_bound_unmeasured": (
        rf"(?P<domain>.+): pass\^(?P<k>\d+) = n/a; the lower 95% bound must be at least {NUMBER}",
        lambda m, c: {"domain": m["domain"], "k": int(m["k"]), "floor": c["threshold"]},
    ),
    "persona_floor": (
        rf"persona (?P<persona>.+): pass\^(?P<k>\d+) = (?P<value>n/a|{NUMBER}) over every "
        rf"domain; the floor is {NUMBER}",
        lambda m, c: {
            "persona": m["persona"],
            "k": int(m["k"]),
            "value": None if m["value"] == "n/a" else c["observed"],
            "floor": c["threshold"],
        },
    ),
    "cell_floor": (
        rf"(?P<domain>\S+) x (?P<persona>\S+): pass\^(?P<k>\d+) = (?P<value>n/a|{NUMBER}); "
        rf"the floor is {NUMBER}",
        lambda m, c: {
            "domain": m["domain"],
            "persona": m["persona"],
            "k": int(m["k"]),
            "value": None if m["value"] == "n/a" else c["observed"],
            "floor": c["threshold"],
        },
    ),
    "pass_1": (
        rf"pass\^1 = {NUMBER} \(at least {NUMBER}\)",
        lambda m, c: {"value": c["observed"], "min": c["threshold"]},
    ),
    "pass_1_unmeasured": (r"pass\^1: no trial was evaluated", lambda m, c: {}),
    "policy_violations": (
        r"(?P<n>\d+) policy violation\(s\) \(at most (?P<max>\d+)\)",
        lambda m, c: {"n": int(m["n"]), "max": int(m["max"])},
    ),
    "selftest_missing": (
        r"No self-test of the oracle at code (?P<version>\S*) covers .+: run "
        r"`golive selftest --domains (?P<csv>[^`]+)`, then the suite again\.",
        lambda m, c: {"version": m["version"], "domains": m["csv"].split(",")},
    ),
    "selftest_short": (
        SELFTEST + r" falls short: (?P<short>.+); every applicable fault must be caught on at "
        r"least (?P<min>\d+)% of its tasks\.",
        _selftest,
    ),
    "selftest_ok": (
        SELFTEST + r": every applicable fault caught on at least (?P<min>\d+)% of its tasks "
        r"\(lowest: (?P<lowest>.+)\)\.",
        _selftest,
    ),
}


def recognise_check(check: dict[str, Any]) -> tuple[str, Params] | None:
    """(code, params) for a stored check without a code, when its message is exactly the
    engine's English for them; else None."""
    message = check.get("message")
    if not isinstance(message, str) or check.get("code"):
        return None
    for code, (pattern, read) in READERS.items():
        match = re.fullmatch(pattern, message)
        if match is None:
            continue
        try:
            params = read(match, check)
            if params is not None and ENGLISH[code](params) == message:
                return code, params
        except (KeyError, TypeError, ValueError):
            continue
    return None


def forward(apps: Any, schema_editor: Any) -> None:
    EvalRun = apps.get_model("evals", "EvalRun")
    for run in EvalRun.objects.exclude(verdict_reasons=[]).only("verdict_reasons").iterator():
        checks = run.verdict_reasons if isinstance(run.verdict_reasons, list) else []
        changed = False
        for check in checks:
            found = recognise_check(check) if isinstance(check, dict) else None
            if found is not None:
                check["code"], check["params"] = found
                changed = True
        if changed:
            EvalRun.objects.filter(pk=run.pk).update(verdict_reasons=checks)


class Migration(migrations.Migration):
    dependencies = [("evals", "0006_run_deadline")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=True)]
