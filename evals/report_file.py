"""The run's report as one self-contained HTML file, to attach to a change request (reads
only): the verdict and its reasons, pass^k per domain with bands, the domain x persona table
with the floors, failure classes, terminations, the weakest cells and the self-test behind
the sensitivity check. Inline CSS, no script, no image, no link that loads anything: the
file opens the same offline, years later. Rendered in the active language."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from evals.charts import _cell_color
from evals.models import EvalRun, EvalSelftest
from evals.services.gate import weakest_cells

WEAKEST = 12


def _grid(summary: dict[str, Any], gate: dict[str, Any]) -> dict[str, Any]:
    """Domain rows x persona columns, each cell with pass^k, pass^1, floor and colour."""
    cells = {
        (c["domain"], c["persona"]): c for c in weakest_cells(summary.get("heatmap") or {}, gate)
    }
    domains = sorted({d for d, _ in cells})
    personas = sorted({p for _, p in cells})
    rows = []
    for d in domains:
        row = []
        for p in personas:
            c = cells.get((d, p))
            if c is not None:
                c = {**c, "colour": _cell_color(c["passk"], c["floor"])}
            row.append(c)
        rows.append({"domain": d, "cells": row})
    return {"personas": personas, "rows": rows}


def _selftest_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The self-test the gate read, per domain: each fault's caught / applicable."""
    found = ((summary.get("selftest") or {}).get("domains")) or {}
    rows = []
    for domain, evidence in found.items():
        if not evidence:
            rows.append({"domain": domain, "selftest": None, "faults": []})
            continue
        faults = [
            {"fault": f, **r, "ok": not r["applicable"] or r["caught"] == r["applicable"]}
            for f, r in evidence["faults"].items()
        ]
        rows.append({"domain": domain, "selftest": evidence["selftest"], "faults": faults})
    return rows


def report_context(run: EvalRun) -> dict[str, Any]:
    summary = run.summary or {}
    report = summary.get("report") or {}
    gate = (run.suite_snapshot or {}).get("gate", {})
    usage = summary.get("usage", {})
    rows = [("all", report.get("pass_hat", {})), *report.get("by_domain", {}).items()]
    ks = list(report.get("pass_hat", {}))
    selftests = _selftest_rows(summary)
    stored = {
        s.pk: s
        for s in EvalSelftest.objects.filter(
            pk__in={r["selftest"] for r in selftests if r["selftest"]}
        )
    }
    for r in selftests:
        r["stored"] = stored.get(r["selftest"])
    return {
        "run": run,
        "summary": summary,
        "report": report,
        "ks": ks,
        "passk": [
            {"label": label, "all": label == "all", "cells": [est.get(k) for k in ks]}
            for label, est in rows
        ],
        "checks": sorted(run.verdict_reasons or [], key=lambda c: c["ok"]),
        "grid": _grid(summary, gate),
        "weakest": weakest_cells(summary.get("heatmap") or {}, gate)[:WEAKEST],
        "failures": sorted((report.get("failures") or {}).items(), key=lambda kv: -kv[1]),
        "terminations": sorted((report.get("terminations") or {}).items(), key=lambda kv: -kv[1]),
        "selftest_rows": selftests,
        "cost": {
            role: f"${usage.get(role, {}).get('cost_micros', 0) / 1_000_000:.4f}"
            for role in ("agent", "user")
        },
        "generated": timezone.now(),
    }


def report_html(run: EvalRun, url: str = "") -> str:
    return render_to_string("evals/report_file.html", {**report_context(run), "url": url})
