"""The summary of a finished run and the go-live gate verdict.

The summary is computed from the stored trial rows (never from what a worker reported), so
a resumed or re-delivered run is judged on exactly the rows that exist once each.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from evals.engine.gate import Check, evaluate
from evals.engine.metrics import Aggregator, Report
from evals.models import EXCLUDED_OUTCOMES, TrialOutcome
from evals.services.suites import Suite


@dataclass(frozen=True, slots=True)
class Row:
    """The columns of a TrialResult that metrics need (no trajectory is ever loaded)."""

    id: int
    domain: str
    task_id: str
    persona: str
    trial: int
    reward: float
    failure: str
    infrastructure: bool
    agent_turns: int
    questions: int
    policy_violations: int
    seconds: float
    agent_tokens_in: int
    agent_tokens_out: int
    agent_cost_micros: int
    user_tokens_in: int
    user_tokens_out: int
    user_cost_micros: int
    outcome: str
    agent_model: str
    user_model: str
    termination: str  # read by the engine's Aggregator: the report's termination breakdown
    # Read by the engine's Aggregator: τ²-bench's own reward and criteria, beside ours.
    published_reward: float | None = None
    published_criteria: Mapping[str, float | None] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.domain}/{self.task_id}/{self.persona}/{self.trial}"

    @property
    def simulator_error(self) -> bool:
        """Read by the engine's Aggregator: counted apart from infrastructure errors."""
        return self.outcome == TrialOutcome.SIMULATOR

    @property
    def excluded(self) -> bool:
        """Not the agent's outcome (left out of n and c)."""
        return self.outcome in EXCLUDED_OUTCOMES


ROW_FIELDS = (
    "id",
    "domain",
    "task_id",
    "persona",
    "trial",
    "reward",
    "failure_class",
    "infrastructure",
    "agent_turns",
    "questions",
    "policy_violations",
    "seconds",
    "agent_tokens_in",
    "agent_tokens_out",
    "agent_cost_micros",
    "user_tokens_in",
    "user_tokens_out",
    "user_cost_micros",
    "outcome",
    "agent_model",
    "user_model",
    "termination",
    "published_reward",
    "published_criteria",
)

# τ²-bench's criteria (`reward_basis` names) as the published-reward line names them.
PUBLISHED_CRITERIA = {
    "DB": gettext_lazy("database"),
    "COMMUNICATE": gettext_lazy("communicate"),
    "ENV_ASSERTION": gettext_lazy("assertions"),
    "ACTION": gettext_lazy("actions"),
    "NL_ASSERTION": gettext_lazy("prose assertions"),
    "termination": gettext_lazy("termination"),
}


def published_line(report: Mapping[str, Any]) -> str:
    """ "τ²-bench's own reward: mean X over N trials; database …, communicate …" from a
    summary's report, criteria in PUBLISHED_CRITERIA's order (a JSON column may reorder
    them), or "" when no trial of the run has a published reward (a domain that
    is not τ²-bench's)."""
    trials = int(report.get("published_trials") or 0)
    mean = report.get("published_mean_reward")
    if not trials or mean is None:
        return ""
    line = _("τ²-bench's own reward: mean %(mean).3f over %(trials)d trials") % {
        "mean": mean,
        "trials": trials,
    }
    criteria = [
        _("%(criterion)s %(mean).3f (%(trials)d trials)")
        % {"criterion": PUBLISHED_CRITERIA.get(name, name), "mean": value[0], "trials": value[1]}
        for name, value in sorted(
            (report.get("published_criteria") or {}).items(),
            key=lambda kv: (
                (list(PUBLISHED_CRITERIA).index(kv[0]), "")
                if kv[0] in PUBLISHED_CRITERIA
                else (len(PUBLISHED_CRITERIA), kv[0])
            ),
        )
    ]
    return "; ".join([line, ", ".join(criteria)]) if criteria else line


SLOWEST = 10


def _heatmap(rows: list[Row], k: int) -> dict[str, Any]:
    """domain x persona: pass^1 and pass^k (mean over that cell group's tasks)."""
    from evals.engine.metrics import pass_hat_k

    cells: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.excluded:
            continue
        cell = cells[(r.domain, r.persona, r.task_id)]
        cell[0] += 1
        cell[1] += 1 if r.reward >= 1.0 else 0
    groups: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for (domain, persona, _task), (n, c) in cells.items():
        groups[(domain, persona)].append((n, c))
    out: dict[str, Any] = {"k": k, "domains": [], "personas": [], "cells": {}}
    for domain, persona in sorted(groups):
        if domain not in out["domains"]:
            out["domains"].append(domain)
        if persona not in out["personas"]:
            out["personas"].append(persona)
        values = groups[(domain, persona)]
        p1 = sum(pass_hat_k(n, c, 1) for n, c in values) / len(values)
        eligible = [(n, c) for n, c in values if n >= k]
        pk = sum(pass_hat_k(n, c, k) for n, c in eligible) / len(eligible) if eligible else None
        out["cells"][f"{domain}|{persona}"] = {"pass1": p1, "passk": pk, "tasks": len(values)}
    return out


def resolved_models(rows: Iterable[Row]) -> dict[str, list[str]]:
    """The distinct models that answered per role, as the adapters resolved them."""
    agent: dict[str, None] = {}
    user: dict[str, None] = {}
    for r in rows:
        if r.agent_model:
            agent[r.agent_model] = None
        if r.user_model:
            user[r.user_model] = None
    return {"agent": sorted(agent), "user": sorted(user)}


def summarise_rows(rows: Iterable[Row], suite: Suite) -> tuple[Report, dict[str, Any]]:
    rows = list(rows)
    agg = Aggregator()
    for r in rows:
        agg.add(r)
    report = agg.report(suite.ks, seed=suite.data.seed)
    usage = {
        role: {
            "tokens_in": sum(getattr(r, f"{role}_tokens_in") for r in rows),
            "tokens_out": sum(getattr(r, f"{role}_tokens_out") for r in rows),
            "cost_micros": sum(getattr(r, f"{role}_cost_micros") for r in rows),
        }
        for role in ("agent", "user")
    }
    slowest = sorted(rows, key=lambda r: r.seconds, reverse=True)[:SLOWEST]
    failures_by_domain: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        if not r.excluded and r.reward < 1.0:
            failures_by_domain[r.domain][r.failure] += 1
    extra = {
        "report": report.to_dict(),
        "gate_k": suite.gate_k,
        "passed": sum(1 for r in rows if not r.excluded and r.reward >= 1.0),
        "failed": sum(1 for r in rows if not r.excluded and r.reward < 1.0),
        "policy_violations": sum(r.policy_violations for r in rows),
        "infrastructure_errors": report.infrastructure_errors,
        "infrastructure_error_rate": report.infrastructure_error_rate,
        "simulator_errors": report.simulator_errors,
        "simulator_error_rate": report.simulator_error_rate,
        "not_judged": report.not_judged,
        "not_judged_tasks": sorted(
            {f"{r.domain}/{r.task_id}" for r in rows if r.outcome == TrialOutcome.NOT_JUDGED}
        ),
        "models": resolved_models(rows),
        "heatmap": _heatmap(rows, suite.gate_k),
        "usage": usage,
        "failures_by_domain": {d: dict(c.most_common()) for d, c in failures_by_domain.items()},
        "slowest": [{"id": r.id, "key": r.key, "seconds": round(r.seconds, 4)} for r in slowest],
        "trial_seconds": round(sum(r.seconds for r in rows), 3),
    }
    return report, extra


def gate_evaluate(suite: Suite, report: Report, extra: dict[str, Any]) -> tuple[str, list[Check]]:
    """('pass' | 'fail' | 'error', checks): the engine's gate (evals.engine.gate) with the
    suite's thresholds. Each check carries a code and its values; the run page words them in
    the reader's language (evals.gate_words), and the stored `message` keeps the English."""
    return evaluate(
        gate=suite.data.gate, k=suite.gate_k, domains=suite.domains, report=report, extra=extra
    )


def weakest_cells(heatmap: Mapping[str, Any], gate: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every domain x persona cell of a summary's heatmap with its floor (the suite
    snapshot's cell floor, else its persona floor, else None) and its distance to it,
    weakest first: below its floor by the most, then the lowest pass^k."""
    persona_floors = gate.get("persona_floors") or {}
    cell_floors = gate.get("cell_floors") or {}
    out = []
    for key, cell in (heatmap.get("cells") or {}).items():
        domain, persona = key.split("|", 1)
        floor = (cell_floors.get(domain) or {}).get(persona, persona_floors.get(persona))
        passk = cell.get("passk")
        margin = None if floor is None or passk is None else passk - floor
        out.append(
            {
                "domain": domain,
                "persona": persona,
                "passk": passk,
                "pass1": cell.get("pass1"),
                "tasks": cell.get("tasks"),
                "floor": floor,
                "margin": margin,
                "below": floor is not None and (passk is None or passk < floor),
            }
        )
    out.sort(
        key=lambda c: (
            not c["below"],
            c["margin"] if c["below"] and c["margin"] is not None else -2.0 if c["below"] else 0,
            -1.0 if c["passk"] is None else c["passk"],
            c["domain"],
            c["persona"],
        )
    )
    return out


def cell_line(cell: dict[str, Any]) -> str:
    """ "membership x impatient 0.400 (floor 0.800, BELOW by 0.400)" """
    value = "n/a" if cell["passk"] is None else f"{cell['passk']:.3f}"
    line = f"{cell['domain']} x {cell['persona']} {value}"
    if cell["floor"] is not None:
        margin = "" if cell["margin"] is None else f" by {abs(cell['margin']):.3f}"
        state = f"BELOW{margin}" if cell["below"] else f"above{margin}"
        line += f" (floor {cell['floor']:.3f}, {state})"
    return line
