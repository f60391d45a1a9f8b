"""What `golive run` and `golive selftest` print: the plan, the progress bar, the verdict, the
self-test table, and the run as JSON (`--json`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO, Any

from django.urls import reverse
from django.utils.translation import gettext as _
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from evals import selectors, services
from evals.domains import get_domain
from evals.engine.gate import MIN_SENSITIVITY
from evals.engine.selftest import replays_gold
from evals.models import EvalRun, EvalSelftest, RunStatus
from evals.services.estimate import estimate
from evals.services.gate import cell_line, published_line, weakest_cells

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2
# Missed task ids printed per fault (the stored self-test keeps them all).
MISSES_SHOWN = 5


def report_url(run: EvalRun, base_url: str) -> str:
    return base_url.rstrip("/") + reverse("evals:run_detail", args=[run.pk])


def exit_code(run: EvalRun) -> int:
    if run.status == RunStatus.COMPLETED:
        return EXIT_PASS if run.verdict == "pass" else EXIT_FAIL
    return EXIT_ERROR


def models_line(run: EvalRun) -> str:
    """Requested and resolved models, e.g. `agent gpt-4.1 (resolved gpt-4.1-2025-04-14)`."""

    def one(role: str, requested: str, resolved: str) -> str:
        if resolved and resolved != requested:
            return f"{role} {requested} (resolved {resolved})"
        return f"{role} {requested}"

    return (
        one("agent", run.agent_model, run.agent_model_resolved)
        + " vs "
        + one("user", run.user_model, run.user_model_resolved)
    )


def run_json(run: EvalRun, base_url: str) -> dict[str, Any]:
    return {
        "id": run.pk,
        "suite": run.suite_name,
        "suite_hash": run.suite_hash,
        "code_version": run.code_version,
        "agent": run.agent_model,
        "user": run.user_model,
        "models_resolved": {"agent": run.agent_model_resolved, "user": run.user_model_resolved},
        "seed": run.seed,
        "status": run.status,
        "verdict": run.verdict,
        "exit_code": exit_code(run),
        "checks": run.verdict_reasons,
        "error": run.error_message,
        "trials": run.total_units,
        "errors": selectors.run_error_rates(run=run),
        "seconds": run.seconds,
        "started_by": run.started_by.username,
        "usage": {
            "agent": {
                "tokens_in": run.agent_tokens_in,
                "tokens_out": run.agent_tokens_out,
                "cost_usd": run.agent_cost_micros / 1e6,
            },
            "user": {
                "tokens_in": run.user_tokens_in,
                "tokens_out": run.user_tokens_out,
                "cost_usd": run.user_cost_micros / 1e6,
            },
        },
        "summary": run.summary,
        "report_url": report_url(run, base_url),
    }


class Bar:
    """The rich progress bar: trials done, pass rate so far, cost so far, time left."""

    def __init__(self, total: int, *, enabled: bool, stream: IO[str]) -> None:
        self.enabled = enabled and total > 0
        self.total = total
        self.progress = Progress(
            TextColumn("[bold]golive"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("pass {task.fields[rate]}"),
            TextColumn("cost ${task.fields[cost]}"),
            TimeRemainingColumn(),
            console=Console(file=stream),
            transient=False,
        )
        self.task = self.progress.add_task("trials", total=total, rate="-", cost="0.0000")
        self._last = 0.0

    def __enter__(self) -> Bar:
        if self.enabled:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.progress.stop()

    def update(self, done: int, passed: int, evaluated: int, cost_micros: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and done < self.total:
            return  # redrawing per trial would cost more than the trials
        self._last = now
        rate = f"{passed / evaluated:.1%}" if evaluated else "-"
        self.progress.update(self.task, completed=done, rate=rate, cost=f"{cost_micros / 1e6:.4f}")


def selftest_short(selftest: EvalSelftest) -> list[str]:
    """`domain fault caught/applicable` for each fault caught below the gate's share."""
    return [
        f"{domain} {fault} {r['caught']}/{r['applicable']}"
        for domain, results in selftest.results.items()
        for fault, r in results.items()
        if r["applicable"] and r["caught"] / r["applicable"] < MIN_SENSITIVITY
    ]


def print_selftest(selftest: EvalSelftest, out: Callable[[str], None]) -> int:
    """The self-test table (caught / applicable per domain and fault, how often the oracle
    named the expected class) and its misses; EXIT_FAIL when a fault is caught too rarely."""
    # The labels are looked up outside the f-string: makemessages (xgettext) does not see
    # gettext calls inside f-string expressions, so they would never reach the catalogue.
    heads = (_("domain"), _("fault"), _("caught/applicable"), _("tasks"))
    tails = (_("sensitivity"), _("named"))
    out(f"{heads[0]:<14}{heads[1]:<19}{heads[2]:>18}{heads[3]:>7}{tails[0]:>13}{tails[1]:>8}")
    misses: list[str] = []
    for domain, results in selftest.results.items():
        for fault, r in results.items():
            applicable = r["applicable"]
            sens = "n/a" if not applicable else f"{r['caught'] / applicable:.1%}"
            named = f"{r['named'] / r['caught']:.0%}" if r["caught"] else "-"
            out(
                f"{domain:<14}{fault:<19}{r['caught']:>10}/{applicable:<7}{r['tasks']:>7}"
                f"{sens:>13}{named:>8}"
            )
            if r["missed"]:
                shown = ", ".join(
                    f"{m['task']} ({m['failure']})" for m in r["missed"][:MISSES_SHOWN]
                )
                more = len(r["missed"]) - MISSES_SHOWN
                extra = _(" … and %d more") % more if more > 0 else ""
                misses.append(f"  {domain} {fault}: {shown}{extra}")
    replayed = [d for d in selftest.results if replays_gold(get_domain(d))]
    if replayed:
        out(
            _(
                "%(domains)s: no reference agent of its own; the faults are injected into the "
                "self-test's replay of each task's gold actions (it tests the oracle, not an agent)."
            )
            % {"domains": ", ".join(replayed)}
        )
    out(_("Missed: none.") if not misses else _("Missed (task, class the oracle gave):"))
    for line in misses:
        out(line)
    short = selftest_short(selftest)
    out(
        _("Below the gate's %(min).0f%%: %(short)s.")
        % {"min": MIN_SENSITIVITY * 100, "short": "; ".join(short)}
        if short
        else _(
            "Every applicable fault caught on at least %(min).0f%% of its tasks (the gate's share)."
        )
        % {"min": MIN_SENSITIVITY * 100}
    )
    return EXIT_FAIL if short else EXIT_PASS


def print_plan(suite: services.Suite, out: Callable[[str], None]) -> None:
    p = estimate(suite)
    d = suite.data
    out(
        f"Suite {suite.name} ({suite.digest()[:12]}): {p.trials} trials = "
        + " + ".join(f"{dom} {n}" for dom, n in p.by_domain.items())
        + f" ({len(d.personas)} personas x {d.trials} trials per task)"
    )
    out(
        f"Agent {d.agent.model} vs user {d.user.model}; gate pass^{suite.gate_k} lower bound ≥ {d.gate.pass_hat_k_lower}, pass^1 ≥ {d.gate.pass_hat_1}"
    )
    if not p.roles:
        out("Offline models only: no LLM calls, no cost.")
    for role, r in p.roles.items():
        cost = "unpriced model (cost unknown)" if r.cost_usd is None else f"≈ ${r.cost_usd:,.2f}"
        out(
            f"  {role} {r.model}: ≈ {r.calls:,} calls, ≈ {r.tokens_in:,} tokens in, "
            f"≈ {r.tokens_out:,} tokens out, {cost}"
        )


def print_verdict(run: EvalRun, out: Callable[[str], None], base_url: str) -> None:
    label = {"pass": "PASS", "fail": "FAIL", "error": "COULD NOT COMPLETE"}.get(
        run.verdict, run.status.upper()
    )
    report = (run.summary or {}).get("report", {})
    p = report.get("pass_hat", {})
    strict = report.get("pass_hat_strict", {})
    figures = ", ".join(
        f"pass^{k} {e['value']:.3f} [{e['low']:.3f}, {e['high']:.3f}]" for k, e in p.items()
    )
    out(f"Verdict: {label} — run #{run.pk}, {run.total_units} trials in {run.seconds or 0:.1f} s")
    if figures:
        out(f"  {figures}")
    if strict:
        out(
            "  with every excluded trial counted as a failure: "
            + ", ".join(f"pass^{k} {e['value']:.3f}" for k, e in strict.items())
        )
    published = published_line(report)
    if published:
        out(f"  {published}")
    if run.summary:
        rates = selectors.run_error_rates(run=run)
        out(
            "  errors: "
            + ", ".join(
                f"{kind} {r['count']} ({r['rate']:.1%}"
                + (f", at most {r['max_rate']:.1%})" if r["max_rate"] is not None else ")")
                for kind, r in rates.items()
            )
        )
    for check in run.verdict_reasons:
        out(f"  [{'ok' if check['ok'] else 'FAIL'}] {check['message']}")
    cells = weakest_cells(
        (run.summary or {}).get("heatmap") or {}, (run.suite_snapshot or {}).get("gate", {})
    )
    if cells:
        out("  weakest cells: " + "; ".join(cell_line(c) for c in cells[:5]))
    out(f"Report: {report_url(run, base_url)}")
