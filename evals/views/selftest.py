"""The oracle's self-test: starting one for a run's domains, and its page (caught / applicable
per domain and fault, each miss linked)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from backoffice.errors import DomainError
from backoffice.request_operator import request_operator
from evals import access, selectors, services
from evals.engine.gate import MIN_SENSITIVITY
from evals.views.shared import require, run_domains, run_or_404, trials_url


@require_POST
def run_selftest(request: HttpRequest, run_id: int) -> HttpResponse:
    """Measure the oracle's sensitivity on this run's domains (offline, in-process: the
    reference agent, or the gold replay, and seven fault-injected agents once per task they
    apply to; seconds, about a minute for τ² retail)."""
    require(access.can_view_runs(request.user) and access.can_start_runs(request.user))
    run = run_or_404(run_id)
    try:
        selftest = services.eval_selftest_run(
            actor=request_operator(request), domains=run_domains(run)
        )
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            gettext("Selftest #%(pk)s finished in %(seconds).1f s.")
            % {"pk": selftest.pk, "seconds": selftest.seconds},
        )
    return redirect("evals:run_detail", run.pk)


def selftest_matrix(selftest: Any, run: Any = None) -> dict[str, Any]:
    """A self-test as a fault x domain table (caught / applicable) and every miss, each
    linked, when `run` is given, to that run's trials of the task the fault got through on."""
    results = selftest.results or {}
    domains = list(results)
    faults = list(dict.fromkeys(f for d in domains for f in results[d]))
    rows = []
    misses = []
    for fault in faults:
        cells: list[dict[str, Any] | None] = []
        expected = ""
        for domain in domains:
            r = results[domain].get(fault)
            if r is None:
                cells.append(None)
                continue
            expected = r.get("expected", expected)
            applicable = r.get("applicable", 0)
            caught = r.get("caught", 0)
            cells.append(
                {
                    "domain": domain,
                    "caught": caught,
                    "applicable": applicable,
                    "tasks": r.get("tasks"),
                    "named": r.get("named", 0),
                    "percent": 100 * caught / applicable if applicable else None,
                    "ok": not applicable or caught / applicable >= MIN_SENSITIVITY,
                    "missed": len(r.get("missed") or []),
                }
            )
            for m in r.get("missed") or []:
                misses.append(
                    {
                        "domain": domain,
                        "fault": fault,
                        "task": m.get("task", ""),
                        "failure": m.get("failure", ""),
                        "url": trials_url(run.pk, domain=domain, task=m.get("task", ""))
                        if run is not None and domain in run_domains(run)
                        else "",
                    }
                )
        rows.append({"fault": fault, "expected": expected, "cells": cells})
    short = [c for row in rows for c in row["cells"] if c and not c["ok"]]
    return {"domains": domains, "rows": rows, "misses": misses, "short": short}


@require_GET
def selftest_detail(request: HttpRequest, selftest_id: int) -> HttpResponse:
    """One stored self-test: caught / applicable per domain and fault, and every task a fault
    got through on (linked to the trials of that task in `?run=N`, the run it is read for)."""
    require(access.can_view_runs(request.user))
    selftest = selectors.selftest_get(selftest_id=selftest_id)
    if selftest is None:
        raise Http404
    run_id = request.GET.get("run", "")
    run = run_or_404(int(run_id)) if run_id.isdigit() else None
    used_by_run = run is not None and any(
        (found or {}).get("selftest") == selftest.pk
        for found in (((run.summary or {}).get("selftest") or {}).get("domains") or {}).values()
    )
    return render(
        request,
        "evals/selftest_detail.html",
        {
            "selftest": selftest,
            "run": run,
            "used_by_run": used_by_run,
            "min_percent": 100 * MIN_SENSITIVITY,
            **selftest_matrix(selftest, run),
        },
    )
