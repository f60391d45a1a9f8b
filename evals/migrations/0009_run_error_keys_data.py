"""Runs and checks stored before they had keys:

- a run's `error_message` whose text this recognises gets its key and values
  (`error_key`, `error_params`), so the run page words it in the reader's language. Two of
  those texts were worded in the language of whoever caused them (a re-run's, a worker's
  fingerprint refusal): they are recognised in every language of the site. A run is converted
  only when the frozen wording below gives back its message exactly; any other run keeps its
  message, shown as it is.
- a check whose list was cut short ("… and 3 more"), which 0007 could not read back whole,
  keeps the names it showed and how many more there were, so the rest of its sentence is
  worded in the reader's language too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import migrations
from django.utils import translation

from evals.engine.gate import LISTED

Params = dict[str, Any]

RESUME = (
    "Resume it (finished trials are kept): the Resume button on the run's page, "
    "`python manage.py golive run --resume {run}`, or POST /api/v1/evals/runs/{run}/resume."
)
# The English each key was written with, frozen.
ENGLISH: dict[str, Callable[[Params], str]] = {
    "deadline": lambda p: (
        f"Could not complete by its deadline: {p['missing']} of {p['expected']} trials never "
        f"reported. {RESUME.format(run=p['run'])}"
    ),
    "deadline_resent": lambda p: (
        f"Could not complete by its deadline: {p['missing']} of {p['expected']} trials never "
        f"reported (sent again once). {RESUME.format(run=p['run'])}"
    ),
    "missing": lambda p: f"{p['missing']} of {p['expected']} trials are missing; resume the run.",
    "crashed": lambda p: p["error"],
}
# Worded through gettext when they were stored: these msgids, in each language.
LOCALISED = {
    "rerun": ("Re-running %(n)d error trial(s).", {"n": int}),
    "fingerprint": (
        "A worker's fingerprint for %(domain)s is %(worker)s, the run's is %(run)s: "
        "its code or settings differ.",
        {"domain": str, "worker": str, "run": str},
    ),
}


def _localised_patterns() -> list[tuple[str, re.Pattern[str], dict[str, type]]]:
    patterns = []
    for key, (msgid, types) in LOCALISED.items():
        for language, _name in settings.LANGUAGES:
            with translation.override(language):
                text = translation.gettext(msgid)
            regex = re.escape(text)
            for name, kind in types.items():
                group = r"(?P<%s>\d+)" % name if kind is int else r"(?P<%s>\S+?)" % name
                regex = regex.replace(re.escape(f"%({name})d"), group, 1).replace(
                    re.escape(f"%({name})s"), group, 1
                )
            patterns.append((key, re.compile(regex), types))
    return patterns


def _first_failing(checks: Any, rest: str) -> Params | None:
    for check in checks if isinstance(checks, list) else []:
        if isinstance(check, dict) and not check.get("ok") and check.get("message") == rest:
            return {
                "check": {
                    "code": check.get("code") or "",
                    "params": check.get("params") or {},
                    "message": rest,
                }
            }
    return None


def recognise_error(
    message: str, pk: int, checks: Any, localised: list[tuple[str, re.Pattern[str], Any]]
) -> tuple[str, Params] | None:
    """(key, params) for a run's stored error message, or None."""
    m = re.fullmatch(
        r"Could not complete by its deadline: (?P<missing>\d+) of (?P<expected>\d+) trials "
        r"never reported(?P<resent> \(sent again once\))?\. .*",
        message,
        re.DOTALL,
    )
    if m:
        key = "deadline_resent" if m["resent"] else "deadline"
        params: Params = {"missing": int(m["missing"]), "expected": int(m["expected"]), "run": pk}
        return (key, params) if ENGLISH[key](params) == message else None
    m = re.fullmatch(r"(?P<missing>\d+) of (?P<expected>\d+) trials are missing; resume the run\.", message)
    if m:
        return "missing", {"missing": int(m["missing"]), "expected": int(m["expected"])}
    if message.startswith("could not complete: "):
        found = _first_failing(checks, message.removeprefix("could not complete: "))
        return ("not_judged", found) if found else None
    for key, pattern, types in localised:
        m = pattern.fullmatch(message)
        if m:
            return key, {name: kind(m[name]) for name, kind in types.items()}
    if re.fullmatch(r"[A-Z][A-Za-z0-9_]*: .*", message, re.DOTALL):
        # A crash, as the inline executor recorded it: the exception's type and text.
        return "crashed", {"error": message}
    return None


def recognise_cut_list(check: dict[str, Any]) -> Params | None:
    """The params of a cells_short / tasks_unjudged check whose list was cut short."""
    message = check.get("message")
    if check.get("code") or not isinstance(message, str):
        return None
    m = re.fullmatch(
        r"(?P<n>\d+) cell\(s\) \(domain/task/persona\) have fewer than (?P<k>\d+) measured "
        r"trials, so pass\^(?P=k) cannot be estimated for them: (?P<names>.+) and "
        r"(?P<more>\d+) more",
        message,
    )
    code, name = "cells_short", "cells"
    if m is None:
        m = re.fullmatch(
            r"(?P<n>\d+) task\(s\) depend on natural-language assertions that no judge model "
            r"judged \(configure one\): (?P<names>.+) and (?P<more>\d+) more",
            message,
        )
        code, name = "tasks_unjudged", "tasks"
    if m is None:
        return None
    names, more, n = m["names"].split(", "), int(m["more"]), int(m["n"])
    if len(names) != LISTED or n != LISTED + more:
        return None
    params: Params = {"n": n, name: names, "more": more}
    if code == "cells_short":
        params["k"] = int(m["k"])
    return {"code": code, "params": params}


def forward(apps: Any, schema_editor: Any) -> None:
    EvalRun = apps.get_model("evals", "EvalRun")
    localised = _localised_patterns()
    rows = EvalRun.objects.only("pk", "error_message", "error_key", "verdict_reasons")
    for run in rows.iterator(chunk_size=500):
        fields = []
        checks = run.verdict_reasons if isinstance(run.verdict_reasons, list) else []
        for check in checks:
            found = recognise_cut_list(check) if isinstance(check, dict) else None
            if found is not None:
                check.update(found)
                fields = ["verdict_reasons"]
        error = (
            recognise_error(run.error_message, run.pk, checks, localised)
            if run.error_message and not run.error_key
            else None
        )
        if error is not None:
            run.error_key, run.error_params = error
            fields += ["error_key", "error_params"]
        if fields:
            run.verdict_reasons = checks
            run.save(update_fields=fields)


class Migration(migrations.Migration):
    dependencies = [("evals", "0008_run_error_keys")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=True)]
