"""The go-live gate's checks in the reader's language.

The gate (evals.engine.gate, pure Python) gives each check a code and its values; this is the
backoffice's catalogue for those codes, worded when a check is shown, through Django's
translation machinery. A check stored before checks had codes keeps its stored `message`,
shown as it is. The English of each phrase is the engine's (`Check.english()`, which the
command line prints): a test holds the two to the same words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from backoffice.phrases import Catalogue, Phrase, render, render_html
from evals.engine.gate import LISTED


def _percent(value: Any) -> str:
    return f"{float(value):.1%}"


def _listed(names: Sequence[str] | str) -> str:
    if isinstance(names, str):  # already worded (_params: a list stored cut short)
        return names
    shown = ", ".join(names[:LISTED])
    if len(names) <= LISTED:
        return shown
    return _("%(shown)s and %(more)d more") % {"shown": shown, "more": len(names) - LISTED}


def _maybe(value: Any) -> str:
    return _("n/a") if value is None else f"{float(value):.3f}"


def fault_line(item: Mapping[str, Any]) -> str:
    """One domain's self-test result, as evals.engine.gate.fault_line words it in English."""
    if "fault" not in item:
        return _("%(domain)s: no fault applies to any task") % {"domain": item["domain"]}
    return _("%(domain)s %(fault)s caught %(caught)d/%(applicable)d") % dict(item)


def _faults(items: Sequence[Mapping[str, Any]]) -> str:
    return "; ".join(fault_line(i) for i in items)


def _lowest(item: Mapping[str, Any] | None) -> str:
    return fault_line(item) if item else "-"


def _csv(names: Sequence[str]) -> str:
    return ",".join(names)


def _joined(names: Sequence[str]) -> str:
    return ", ".join(names)


RATES = {"rate": _percent, "max": _percent}

CHECKS: Catalogue = {
    "infrastructure_errors": Phrase(
        gettext_lazy(
            "%(errors)d of %(trials)d trials hit an infrastructure error (%(rate)s; at most "
            "%(max)s allowed)"
        ),
        RATES,
    ),
    "simulator_errors": Phrase(
        gettext_lazy(
            "%(errors)d of %(trials)d trials were spoiled by the user simulator (%(rate)s; at "
            "most %(max)s allowed)"
        ),
        RATES,
    ),
    "cells_short": Phrase(
        gettext_lazy(
            "%(n)d cell(s) (domain/task/persona) have fewer than %(k)d measured trials, "
            "so pass^%(k)d cannot be estimated for them: %(cells)s"
        ),
        {"cells": _listed},
    ),
    "cells_measured": Phrase(gettext_lazy("every cell has at least %(k)d measured trials")),
    "tasks_unjudged": Phrase(
        gettext_lazy(
            "%(n)d task(s) depend on natural-language assertions that no judge model "
            "judged (configure one): %(tasks)s"
        ),
        {"tasks": _listed},
    ),
    "tasks_judged": Phrase(gettext_lazy("every task was judged on all of its criteria")),
    "lower_bound": Phrase(
        gettext_lazy(
            "%(domain)s: pass^%(k)d = %(value).3f [%(low).3f, %(high).3f]; the lower 95%% bound "
            "must be at least %(floor).3f"
        )
    ),
    "lower_bound_unmeasured": Phrase(
        gettext_lazy(
            "%(domain)s: pass^%(k)d = n/a; the lower 95%% bound must be at least %(floor).3f"
        )
    ),
    "persona_floor": Phrase(
        gettext_lazy(
            "persona %(persona)s: pass^%(k)d = %(value)s over every domain; the floor is "
            "%(floor).3f"
        ),
        {"value": _maybe},
    ),
    "cell_floor": Phrase(
        gettext_lazy("%(domain)s x %(persona)s: pass^%(k)d = %(value)s; the floor is %(floor).3f"),
        {"value": _maybe},
    ),
    "pass_1": Phrase(gettext_lazy("pass^1 = %(value).3f (at least %(min).3f)")),
    "pass_1_unmeasured": Phrase(gettext_lazy("pass^1: no trial was evaluated")),
    "policy_violations": Phrase(gettext_lazy("%(n)d policy violation(s) (at most %(max)d)")),
    "selftest_missing": Phrase(
        gettext_lazy(
            "No self-test of the oracle at code %(version)s covers %(domains)s: run "
            "`golive selftest --domains %(csv)s`, then the suite again."
        ),
    ),
    "selftest_short": Phrase(
        gettext_lazy(
            "Self-test %(ids)s at code %(version)s falls short: %(short)s; every applicable "
            "fault must be caught on at least %(min).0f%% of its tasks."
        ),
        {"short": _faults},
    ),
    "selftest_ok": Phrase(
        gettext_lazy(
            "Self-test %(ids)s at code %(version)s: every applicable fault caught on at least "
            "%(min).0f%% of its tasks (lowest: %(lowest)s)."
        ),
        {"lowest": _lowest},
    ),
}


def _params(check: Mapping[str, Any]) -> dict[str, Any]:
    params = dict(check.get("params") or {})
    if "more" in params:
        # A list stored cut short, before checks had codes (evals 0009): the names it showed
        # and how many more there were.
        name = "cells" if "cells" in params else "tasks"
        shown = ", ".join(str(v) for v in params.get(name) or [])
        more = params.pop("more")
        params[name] = _("%(shown)s and %(more)d more") % {"shown": shown, "more": more}
    if check.get("code") == "selftest_missing":
        # One stored list, shown twice: as prose and as the command's argument.
        domains = list(params.get("domains") or [])
        params = params | {"domains": _joined(domains), "csv": _csv(domains)}
    return params


def check_words(check: Mapping[str, Any]) -> str:
    """A stored check's message in the active language; a check stored before checks had
    codes (or with a code this version does not know) shows its stored message."""
    code, legacy = str(check.get("code") or ""), str(check.get("message", ""))
    return render(CHECKS, code, _params(check), legacy)


def check_html(check: Mapping[str, Any]) -> SafeString:
    """check_words() for a page: the code version set as code, as the command is."""
    code, legacy = str(check.get("code") or ""), str(check.get("message", ""))
    return render_html(CHECKS, code, _params(check), legacy, code=frozenset({"version"}))


__all__ = ["CHECKS", "check_html", "check_words", "fault_line"]
