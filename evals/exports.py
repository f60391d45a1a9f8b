"""A run exported for other tools (reads only).

`trial_lines`: one JSON object per trial, streamed (never the whole run in memory), with
τ²-bench's `SimulationRun` field names where the concept is the same — `task_id`, `trial`,
`seed`, `duration`, `termination_reason`, `agent_cost`, `user_cost`, `messages`,
`reward_info` — and ours beside them (`domain`, `persona`, `outcome`, `failure_class`, the
guard's `verdicts`, the state `diff`). `reward_info.reward` is our reward; τ²-bench's own
reward, where the domain has one, is `reward_info.tau2_reward` with its criteria.

`report_markdown`: the verdict, pass^k with bands, the checks and the weakest cells, for a
CI comment (`golive show RUN --format md`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from evals.models import EvalRun, TrialResult
from evals.services.gate import cell_line, weakest_cells

EXPORT_FIELDS = (
    "id",
    "domain",
    "task_id",
    "persona",
    "trial",
    "seed",
    "outcome",
    "reward",
    "components",
    "failure_class",
    "termination",
    "trajectory",
    "diff",
    "seconds",
    "agent_cost_micros",
    "user_cost_micros",
    "agent_tokens_in",
    "agent_tokens_out",
    "user_tokens_in",
    "user_tokens_out",
    "published_reward",
    "published_criteria",
    "agent_model",
    "user_model",
    "created_at",
)


def trial_record(t: TrialResult) -> dict[str, Any]:
    trajectory = t.trajectory or {}
    return {
        "id": f"{t.run_id}/{t.key}",
        "task_id": t.task_id,
        "trial": t.trial,
        "seed": t.seed,
        "timestamp": t.created_at.isoformat(),
        "duration": t.seconds,
        "termination_reason": t.termination,
        "agent_cost": t.agent_cost_micros / 1_000_000,
        "user_cost": t.user_cost_micros / 1_000_000,
        "messages": trajectory.get("messages", []),
        "reward_info": {
            "reward": t.reward,
            "reward_breakdown": t.components,
            "tau2_reward": t.published_reward,
            "tau2_reward_breakdown": t.published_criteria or None,
        },
        "domain": t.domain,
        "persona": t.persona,
        "outcome": t.outcome,
        "failure_class": t.failure_class,
        "verdicts": trajectory.get("verdicts", []),
        "diff": t.diff,
        "tokens": {
            "agent_in": t.agent_tokens_in,
            "agent_out": t.agent_tokens_out,
            "user_in": t.user_tokens_in,
            "user_out": t.user_tokens_out,
        },
        "models": {"agent": t.agent_model, "user": t.user_model},
        "message_records": trajectory.get("message_records", []),
    }


def trial_lines(run: EvalRun) -> Iterator[str]:
    rows = (
        TrialResult.objects.filter(run_id=run.pk)
        .only(*EXPORT_FIELDS, "run_id")
        .order_by("domain", "task_id", "persona", "trial")
        .iterator(chunk_size=200)
    )
    for t in rows:
        yield json.dumps(trial_record(t), ensure_ascii=False, separators=(",", ":")) + "\n"


def _band(e: dict[str, Any]) -> str:
    return f"{e['value']:.3f} [{e['low']:.3f}, {e['high']:.3f}]"


def report_markdown(run: EvalRun, url: str) -> str:
    """The run as a Markdown comment: verdict, pass^k per domain, the checks, the cells."""
    summary = run.summary or {}
    report = summary.get("report", {})
    verdict = {"pass": "PASS", "fail": "FAIL", "error": "COULD NOT COMPLETE"}.get(
        run.verdict, run.status.upper()
    )
    out = [
        f"### Go-live run #{run.pk} · {run.suite_name}: **{verdict}**",
        "",
        f"Agent `{run.agent_model}`, user `{run.user_model}`, {run.total_units} trials, "
        f"code `{run.code_version}`, by {run.started_by.username}. [Report]({url})",
        "",
    ]
    by_domain = report.get("by_domain", {})
    ks = list(report.get("pass_hat", {}))
    if ks:
        out += ["| | " + " | ".join(f"pass^{k}" for k in ks) + " |"]
        out += ["|---|" + "---|" * len(ks)]
        rows = [("all", report.get("pass_hat", {})), *by_domain.items()]
        for label, est in rows:
            cells = [_band(est[k]) if k in est else "-" for k in ks]
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("")
    checks = run.verdict_reasons or []
    if checks:
        out += ["| | check | observed | threshold |", "|---|---|---|---|"]
        for c in sorted(checks, key=lambda c: c["ok"]):
            mark = "✅" if c["ok"] else "❌"
            out.append(f"| {mark} | {c['check']} | {c['observed']:.3f} | {c['threshold']:.3f} |")
        out.append("")
    weakest = weakest_cells(
        summary.get("heatmap") or {}, (run.suite_snapshot or {}).get("gate", {})
    )
    if weakest:
        out.append("Weakest cells: " + "; ".join(cell_line(c) for c in weakest[:5]))
        out.append("")
    failures = report.get("failures", {})
    if failures:
        out.append("Failures: " + ", ".join(f"{k} {v}" for k, v in failures.items()))
    return "\n".join(out).rstrip() + "\n"
