"""The pass^k report as the command line prints it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evals.engine.metrics import Estimate, Report

# The words the table uses for each termination reason (messages.TerminationReason).
TERMINATION_LABELS = {
    "user_stop": "customer stop",
    "agent_end": "agent end",
    "transfer_to_human": "hand-off",
    "user_abandon": "customer abandoned",
    "max_turns": "turn limit",
    "max_errors": "tool-error limit",
    "wall_time": "wall-time limit",
    "agent_error": "agent error",
    "infrastructure_error": "infrastructure error",
    "simulator_error": "simulator error",
}


def render_terminations(terminations: Mapping[str, int]) -> str:
    """E.g. "ended by: customer stop 170, tool-error limit 8, hand-off 2"."""
    return "ended by: " + ", ".join(
        f"{TERMINATION_LABELS.get(reason, reason)} {count}"
        for reason, count in terminations.items()
    )


def _listed(names: Sequence[str], most: int = 5) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def render_table(report: Report) -> str:
    """The pass^k table as plain text (what the command prints): each figure over the
    measured trials, and in parentheses the same with every excluded trial a failure."""

    def fmt(e: Estimate | None, s: Estimate | None) -> str:
        if e is None:
            return "   -   "
        strict = f" ({s.value:.3f})" if s is not None and abs(s.value - e.value) > 5e-4 else ""
        return f"{e.value:.3f} [{e.low:.2f},{e.high:.2f}]{strict}"

    rows: list[tuple[str, Mapping[int, Estimate], Mapping[int, Estimate]]] = [
        ("all", report.pass_hat, report.pass_hat_strict)
    ]
    rows += [
        (f"persona {p}", m, report.by_persona_strict.get(p, {}))
        for p, m in report.by_persona.items()
    ]
    if len(report.by_domain) > 1:
        rows += [
            (f"domain {d}", m, report.by_domain_strict.get(d, {}))
            for d, m in report.by_domain.items()
        ]
    width = max(len(name) for name, _, _ in rows) + 2
    lines = [" " * width + "".join(f"{'pass^' + str(k):<32}" for k in report.ks)]
    for name, m, strict in rows:
        lines.append(
            f"{name:<{width}}" + "".join(f"{fmt(m.get(k), strict.get(k)):<32}" for k in report.ks)
        )
    lines.append("pass@k: " + ", ".join(f"@{k}={e.value:.3f}" for k, e in report.pass_at.items()))
    excluded = report.infrastructure_errors + report.simulator_errors + report.not_judged
    lines.append(
        f"trials {report.trials}, evaluated {report.evaluated}, mean reward "
        f"{report.mean_reward:.3f}, infrastructure errors {report.infrastructure_errors}, "
        f"simulator errors {report.simulator_errors}, not judged {report.not_judged}"
    )
    if excluded:
        lines.append(f"(figures in parentheses count the {excluded} excluded trials as failures)")
    if report.published_mean_reward is not None:
        lines.append(
            f"published benchmark's own reward (its definition, not part of ours): mean "
            f"{report.published_mean_reward:.3f} over {report.published_trials} of "
            f"{report.evaluated} evaluated trials"
        )
    if report.published_criteria:
        lines.append(
            "its criteria, mean (trials): "
            + ", ".join(
                f"{n} {mean:.3f} ({t})" for n, (mean, t) in report.published_criteria.items()
            )
        )
    if report.not_judged:
        lines.append(
            f"NOT JUDGED: {report.not_judged} trials passed every deterministic check but "
            "depend on natural-language assertions and the run had no judge model"
        )
    k = max(report.ks)
    short = report.short_cells.get(k, ())
    if short:
        lines.append(
            f"NO VERDICT POSSIBLE at k={k}: {len(short)} cell(s) have fewer than {k} measured "
            f"trials: {_listed(list(short))}"
        )
    if report.failures:
        lines.append("failures: " + ", ".join(f"{k} {v}" for k, v in report.failures.items()))
    if report.terminations:
        lines.append(render_terminations(report.terminations))
    lines.append(
        f"per resolved task: {report.agent_turns_per_resolved:.1f} agent turns, "
        f"{report.questions_per_resolved:.1f} questions"
    )
    return "\n".join(lines)
