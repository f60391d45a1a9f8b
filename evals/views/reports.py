"""Report pages: a run's report (with its live progress while it runs), its exports, resuming
it, and the comparison of two runs. Pages return 404 to operators without the role: their
existence is not advertised (evals.views.shared)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from backoffice.errors import DomainError
from backoffice.request_operator import request_operator
from evals import access, charts, selectors, services
from evals.comparison import BOOTSTRAP_MAX_CELLS, run_comparison
from evals.engine.gate import MIN_SENSITIVITY
from evals.exports import trial_lines
from evals.models import EvalRun, EvalSelftest, Executor, RunStatus
from evals.report_file import report_html
from evals.services.gate import published_line, weakest_cells
from evals.views.shared import require, run_domains, run_or_404, trials_url

PAGE_SIZE = 25
# The run page lists this many domain x persona cells, weakest first.
WEAKEST = 12


def _floor(gate: dict[str, Any], domain: str, persona: str) -> float | None:
    cell = (gate.get("cell_floors") or {}).get(domain, {}).get(persona)
    return cell if cell is not None else (gate.get("persona_floors") or {}).get(persona)


def _series(summary: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    report = summary.get("report", {})
    series: list[tuple[str, dict[str, Any]]] = [(gettext("all"), report.get("pass_hat", {}))]
    series += [(f"{d}", est) for d, est in report.get("by_domain", {}).items()]
    return series


ROLE_LABELS = {"agent": gettext_lazy("Agent"), "user": gettext_lazy("User simulator")}
ERROR_HELP = {
    "infrastructure": (
        gettext_lazy("Infrastructure errors"),
        gettext_lazy(
            "Provider outage, rate limit, timeout or a harness crash: above the threshold the "
            "run could not complete (exit 2)."
        ),
    ),
    "simulator": (
        gettext_lazy("Simulator errors"),
        gettext_lazy(
            "The simulated customer demonstrably broke its scenario (stated a fact it was never "
            "given, or stopped or said no when the agent proposed exactly what it wanted): above "
            "the threshold the run could not complete (exit 2)."
        ),
    ),
}
NOT_JUDGED_HELP = (
    gettext_lazy("Not judged"),
    gettext_lazy(
        "Passed every deterministic check, but success also depends on natural-language "
        "assertions and the run had no judge model: never counted as a pass, and the gate "
        "gives no verdict while any remain."
    ),
)


def _passk_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per k: pass^k over the measured trials, the same with every excluded trial
    counted as a failure, and pass@k."""
    strict = report.get("pass_hat_strict", {})
    at = report.get("pass_at", {})
    return [
        {
            "k": k,
            "estimate": e,
            "strict": strict.get(k, {}).get("value"),
            "at": at.get(k, {}).get("value"),
        }
        for k, e in report.get("pass_hat", {}).items()
    ]


def _error_rows(run: Any) -> list[dict[str, Any]]:
    """Infrastructure and simulator errors apart, each with its gate threshold (percent)."""
    rows = []
    for kind, r in selectors.run_error_rates(run=run).items():
        label, help_text = ERROR_HELP[kind]
        rows.append(
            {
                "label": label,
                "count": r["count"],
                "rate": 100 * r["rate"],
                "max_rate": None if r["max_rate"] is None else 100 * r["max_rate"],
                "ok": r["max_rate"] is None or r["rate"] <= r["max_rate"],
                "help": help_text,
            }
        )
    summary = run.summary or {}
    not_judged = int(summary.get("not_judged", 0) or 0)
    trials = int((summary.get("report") or {}).get("trials", 0) or 0)
    rows.append(
        {
            "label": NOT_JUDGED_HELP[0],
            "count": not_judged,
            "rate": 100 * not_judged / trials if trials else 0.0,
            "max_rate": 0.0,
            "ok": not_judged == 0,
            "help": NOT_JUDGED_HELP[1],
        }
    )
    return rows


def _charts_context(
    run: EvalRun,
    summary: dict[str, Any],
    report: dict[str, Any],
    gate: dict[str, Any],
    failures: list[tuple[str, Any]],
) -> dict[str, Any]:
    """The run page's charts (pass^k overall and by persona, the domain-by-persona heatmap
    with its floors, the failure bars) and the weakest cells, each linked to its trials."""
    return {
        "pass_chart": charts.pass_k_chart(
            _series(summary),
            links={
                gettext("all"): trials_url(run.pk),
                **{d: trials_url(run.pk, domain=d) for d in report.get("by_domain", {})},
            },
        )
        if report
        else "",
        "persona_chart": charts.pass_k_chart(
            list(report.get("by_persona", {}).items()),
            links={p: trials_url(run.pk, persona=p) for p in report.get("by_persona", {})},
        )
        if report
        else "",
        "heatmap": charts.heatmap(
            summary.get("heatmap", {}),
            link=lambda d, p: trials_url(run.pk, domain=d, persona=p),
            floor=lambda d, p: _floor(gate, d, p),
        ),
        "has_floors": bool(gate.get("persona_floors") or gate.get("cell_floors")),
        "weakest": [
            {**c, "url": trials_url(run.pk, domain=c["domain"], persona=c["persona"])}
            for c in weakest_cells(summary.get("heatmap") or {}, gate)[:WEAKEST]
        ],
        "failure_chart": charts.bars(
            [(k, float(v)) for k, v in failures],
            links={k: trials_url(run.pk, failure=k) for k, _ in failures},
        ),
    }


def _usage_rows(usage: dict[str, Any]) -> list[dict[str, Any]]:
    """Tokens and cost of the agent and of the simulated customer."""
    return [
        {
            "name": ROLE_LABELS.get(role, role),
            "tokens_in": usage.get(role, {}).get("tokens_in", 0),
            "tokens_out": usage.get(role, {}).get("tokens_out", 0),
            "cost": f"${usage.get(role, {}).get('cost_micros', 0) / 1_000_000:.4f}",
        }
        for role in ("agent", "user")
    ]


@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    require(access.can_view_runs(request.user))
    run = run_or_404(run_id)
    summary = run.summary or {}
    report = summary.get("report", {})
    failures = sorted(report.get("failures", {}).items(), key=lambda kv: -kv[1])
    domains = run_domains(run)
    selftest = selectors.selftest_latest(domains=domains)
    can_start = access.can_start_runs(request.user)
    slow_ids = [s["id"] for s in summary.get("slowest", [])]
    gate = (run.suite_snapshot or {}).get("gate", {})
    slowest = sorted(
        selectors.run_trials(run_id=run.pk).filter(pk__in=slow_ids), key=lambda t: -t.seconds
    )
    return render(
        request,
        "evals/run_detail.html",
        {
            "run": run,
            "summary": summary,
            "report": report,
            "passk_rows": _passk_rows(report),
            "published_line": published_line(report),
            **_charts_context(run, summary, report, gate, failures),
            "failures": failures,
            "heatmap_links": [
                {"domain": d, "persona": p, **cell}
                for key, cell in (summary.get("heatmap") or {}).get("cells", {}).items()
                for d, p in [key.split("|", 1)]
            ],
            "usage_rows": _usage_rows(summary.get("usage", {})),
            "slowest": slowest,
            "failing": selectors.run_failing_trials(run_id=run.pk, limit=100),
            **_live_context(run),
            "selftest": selftest,
            **_selftest_panel(run, selftest),
            "run_domains": domains,
            "can_selftest": can_start,
            "error_rows": _error_rows(run),
            "other_models": selectors.run_trials_with_other_models(run=run),
            "finished": run.status in (RunStatus.COMPLETED, RunStatus.ERROR),
            # A queued run is about to start (a worker picks it up): resuming it too would
            # run it twice over; only an interrupted run is resumed from here.
            "can_resume": can_start and run.status == RunStatus.FAILED,
            "other_runs": selectors.run_list().exclude(pk=run.pk)[:20],
            **_history(run),
        },
    )


def _selftest_panel(run: Any, latest: Any) -> dict[str, Any]:
    """The self-test in the verdict panel: the gate's sensitivity check and, per domain, the
    self-test it read (caught / applicable over its faults, misses), linked to its page; the
    newest covering self-test when the gate read none (a run judged before one was stored)."""
    check = next(
        (c for c in run.verdict_reasons or [] if c.get("check") == "oracle_sensitivity"), None
    )
    found = ((run.summary or {}).get("selftest") or {}).get("domains") or {}
    ids = {f["selftest"] for f in found.values() if f}
    stored = {s.pk: s for s in EvalSelftest.objects.filter(pk__in=ids)}
    rows = []
    for domain, evidence in found.items():
        if not evidence:
            rows.append({"domain": domain, "selftest": None})
            continue
        faults = [r for r in evidence["faults"].values() if r["applicable"]]
        test = stored.get(evidence["selftest"])
        results = (test.results or {}).get(domain, {}) if test else {}
        rows.append(
            {
                "domain": domain,
                "selftest": evidence["selftest"],
                "stored": test is not None,
                "faults": len(faults),
                "full": sum(1 for r in faults if r["caught"] >= MIN_SENSITIVITY * r["applicable"]),
                "caught": sum(r["caught"] for r in faults),
                "applicable": sum(r["applicable"] for r in faults),
                "misses": sum(len(r.get("missed") or []) for r in results.values()),
            }
        )
    return {
        "sensitivity": check,
        "selftest_rows": rows,
        "selftest_other": latest if latest is not None and latest.pk not in ids else None,
    }


def _history(run: Any) -> dict[str, Any]:
    """pass^k (the gate's k) per domain over the suite's last finished runs up to this one,
    with the agent that was measured, its code and who ran it."""
    runs = selectors.run_history(suite_name=run.suite_name, before=run)
    rows = []
    for r in runs:
        summary = r.summary or {}
        k = str(summary.get("gate_k") or r.trials_per_task)
        by_domain = (summary.get("report") or {}).get("by_domain", {})
        rows.append(
            {
                "run": r,
                "k": k,
                "domains": {d: est.get(k) for d, est in by_domain.items()},
                "current": r.pk == run.pk,
            }
        )
    domains = sorted({d for row in rows for d in row["domains"]})
    for row in rows:
        row["cells"] = [row["domains"].get(d) for d in domains]
    return {
        "history": rows,
        "history_domains": domains,
        "history_chart": charts.history_chart(
            [(f"#{row['run'].pk}", row["domains"]) for row in rows]
        ),
    }


LIVE = (RunStatus.QUEUED, RunStatus.RUNNING)


def _live_context(run: Any) -> dict[str, Any]:
    """The live panel: counts by outcome and the newest non-passing trials, from the rows
    stored so far (one place, so the page never shows two different counts)."""
    return {
        "run": run,
        "live": run.status in LIVE,
        "counts": selectors.run_live_counts(run=run),
        "latest_failing": selectors.run_latest_failing(run_id=run.pk),
        "deadline": selectors.run_deadline(run=run),
    }


@require_GET
def run_progress(request: HttpRequest, run_id: int) -> HttpResponse:
    """The live panel, polled by htmx every 2 s while the run is queued or running. Once it
    has finished, the page reloads itself (HX-Refresh) to show the verdict and the report."""
    require(access.can_view_runs(request.user))
    run = run_or_404(run_id)
    response = render(request, "evals/_progress.html", _live_context(run))
    if run.status not in LIVE and request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"
    return response


@require_POST
def run_resume(request: HttpRequest, run_id: int) -> HttpResponse:
    require(access.can_view_runs(request.user) and access.can_start_runs(request.user))
    run = run_or_404(run_id)
    try:
        services.eval_run_resume(
            actor=request_operator(request),
            run_id=run.pk,
            executor=Executor.INLINE,
            suite=services.suite_check_web_models(suite=services.run_suite(run=run)),
        )
    except services.SuiteError as exc:
        messages.error(request, str(exc))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("evals:run_detail", run.pk)


@require_GET
def run_export(request: HttpRequest, run_id: int) -> StreamingHttpResponse:
    """The run's trials as JSON lines (evals.exports), streamed as a download."""
    require(access.can_view_runs(request.user))
    run = run_or_404(run_id)
    response = StreamingHttpResponse(trial_lines(run), content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="golive-run-{run.pk}.jsonl"'
    return response


@require_GET
def run_report_file(request: HttpRequest, run_id: int) -> HttpResponse:
    """The report as one self-contained HTML file (evals.report_file), as a download."""
    require(access.can_view_runs(request.user))
    run = run_or_404(run_id)
    response = HttpResponse(
        report_html(run, request.build_absolute_uri(reverse("evals:run_detail", args=[run.pk]))),
        content_type="text/html; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="golive-run-{run.pk}.html"'
    return response


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    require(access.can_view_runs(request.user))
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    if not (a.isdigit() and b.isdigit()):
        messages.error(request, gettext("Pick two runs to compare."))
        return redirect(reverse("evals:run_list"))
    try:
        comparison = run_comparison(run_a=int(a), run_b=int(b))
    except DomainError as exc:
        raise Http404 from exc
    sections = [
        (gettext("Overall"), comparison.overall, "compare-overall"),
        (gettext("Per domain"), comparison.by_domain, "compare-domains"),
        (gettext("Per persona"), comparison.by_persona, "compare-personas"),
    ]
    return render(
        request,
        "evals/compare.html",
        {
            "c": comparison,
            "sections": sections,
            "bootstrap_max": BOOTSTRAP_MAX_CELLS,
            # A trial's page is its run's trial list plus "<id>/" (evals.urls): one reverse
            # per run instead of one per flipped cell (up to 400, a quarter of the page's
            # rendering time).
            "trials_a": reverse("evals:run_trial_list", args=[comparison.a.pk]),
            "trials_b": reverse("evals:run_trial_list", args=[comparison.b.pk]),
        },
    )
