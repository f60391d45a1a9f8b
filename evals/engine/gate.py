"""The go-live gate: the checks a finished run's report is held to, and the verdict.

The engine is pure Python and says nothing to a person in a language: each check carries a
code and its values (`Check.code`, `Check.params`, plain JSON). `Check.english()` is the
wording the command line prints (and that a stored check keeps as its plain-text `message`);
the backoffice words the same codes through its translation catalogue (`evals.gate_words`),
in the reader's language, when it shows the check — as it does the model probe's problems
(`evals.engine.llm.probe`).

Verdict: 'error' when too many trials were spoiled by the provider or the simulated customer,
or too few were measured or judged (the run says nothing either way about the agent); else
'pass' when every check holds, 'fail' otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from evals.engine.metrics import Report

# Every fault the self-test injects must be caught on this share of the tasks it applies
# to, in every domain of the suite: an oracle that lets faults through cannot vouch for a pass.
MIN_SENSITIVITY = 0.99
# A long list in a message names this many items, then how many more.
LISTED = 10


class Thresholds(Protocol):
    """The suite's gate section (evals.services.suites.Gate has these fields)."""

    pass_hat_k_lower: float
    pass_hat_1: float
    max_policy_violations: int
    max_infrastructure_error_rate: float
    max_simulator_error_rate: float
    persona_floors: dict[str, float]
    cell_floors: dict[str, dict[str, float]]


@dataclass(frozen=True)
class Check:
    check: str  # the check's name (an identifier: "pass^2 floor · retail x impatient")
    ok: bool
    observed: float
    threshold: float
    code: str  # what the message says, as a key of ENGLISH (and of the backoffice catalogue)
    params: Mapping[str, Any] = field(default_factory=dict)

    def english(self) -> str:
        return ENGLISH[self.code](self.params)

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "ok": self.ok,
            "observed": self.observed,
            "threshold": self.threshold,
            "code": self.code,
            "params": dict(self.params),
            "message": self.english(),
        }


# Wording ---------------------------------------------------------------------------------


def listed(names: Sequence[str], most: int = LISTED) -> str:
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


def fault_line(item: Mapping[str, Any]) -> str:
    """One domain's self-test result: a fault's catch count, or that no fault applies."""
    if "fault" not in item:
        return f"{item['domain']}: no fault applies to any task"
    return f"{item['domain']} {item['fault']} caught {item['caught']}/{item['applicable']}"


def _maybe(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _error_rate(what: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda p: (
        f"{p['errors']} of {p['trials']} trials {what} ({p['rate']:.1%}; at most "
        f"{p['max']:.1%} allowed)"
    )


ENGLISH: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "infrastructure_errors": _error_rate("hit an infrastructure error"),
    "simulator_errors": _error_rate("were spoiled by the user simulator"),
    "cells_short": lambda p: (
        f"{p['n']} cell(s) (domain/task/persona) have fewer than {p['k']} measured trials, "
        f"so pass^{p['k']} cannot be estimated for them: {listed(p['cells'])}"
    ),
    "cells_measured": lambda p: f"every cell has at least {p['k']} measured trials",
    "tasks_unjudged": lambda p: (
        f"{p['n']} task(s) depend on natural-language assertions that no judge model "
        f"judged (configure one): {listed(p['tasks'])}"
    ),
    "tasks_judged": lambda p: "every task was judged on all of its criteria",
    "lower_bound": lambda p: (
        f"{p['domain']}: pass^{p['k']} = {p['value']:.3f} [{p['low']:.3f}, {p['high']:.3f}]; "
        f"the lower 95% bound must be at least {p['floor']:.3f}"
    ),
    "lower_bound_unmeasured": lambda p: (
        f"{p['domain']}: pass^{p['k']} = n/a; the lower 95% bound must be at least {p['floor']:.3f}"
    ),
    "persona_floor": lambda p: (
        f"persona {p['persona']}: pass^{p['k']} = {_maybe(p['value'])} over every domain; "
        f"the floor is {p['floor']:.3f}"
    ),
    "cell_floor": lambda p: (
        f"{p['domain']} x {p['persona']}: pass^{p['k']} = {_maybe(p['value'])}; the floor is "
        f"{p['floor']:.3f}"
    ),
    "pass_1": lambda p: f"pass^1 = {p['value']:.3f} (at least {p['min']:.3f})",
    "pass_1_unmeasured": lambda p: "pass^1: no trial was evaluated",
    "policy_violations": lambda p: f"{p['n']} policy violation(s) (at most {p['max']})",
    "selftest_missing": lambda p: (
        f"No self-test of the oracle at code {p['version']} covers {', '.join(p['domains'])}: "
        f"run `golive selftest --domains {','.join(p['domains'])}`, then the suite again."
    ),
    "selftest_short": lambda p: (
        f"Self-test {p['ids']} at code {p['version']} falls short: "
        f"{'; '.join(fault_line(i) for i in p['short'])}; every applicable fault must be "
        f"caught on at least {p['min']:.0f}% of its tasks."
    ),
    "selftest_ok": lambda p: (
        f"Self-test {p['ids']} at code {p['version']}: every applicable fault caught on at "
        f"least {p['min']:.0f}% of its tasks (lowest: "
        f"{fault_line(p['lowest']) if p['lowest'] else '-'})."
    ),
}


# Checks ----------------------------------------------------------------------------------


def _error_checks(gate: Thresholds, report: Report, extra: Mapping[str, Any]) -> list[Check]:
    """The provider's and the simulated customer's share of spoiled trials."""
    checks = []
    for name, errors, rate, most in (
        (
            "infrastructure_error_rate",
            report.infrastructure_errors,
            float(extra.get("infrastructure_error_rate", report.infrastructure_error_rate)),
            gate.max_infrastructure_error_rate,
        ),
        (
            "simulator_error_rate",
            report.simulator_errors,
            float(extra.get("simulator_error_rate", report.simulator_error_rate)),
            gate.max_simulator_error_rate,
        ),
    ):
        params = {"errors": errors, "trials": report.trials, "rate": rate, "max": most}
        code = (
            "infrastructure_errors" if name == "infrastructure_error_rate" else "simulator_errors"
        )
        checks.append(Check(name, rate <= most, rate, most, code, params))
    return checks


def _coverage_checks(k: int, report: Report, extra: Mapping[str, Any]) -> list[Check]:
    """Enough measured trials in every cell, and every task judged on all its criteria."""
    short = list(report.short_cells.get(k, ()))
    unjudged = list(extra.get("not_judged_tasks", ()))
    return [
        Check(
            "cells_measured",
            not short,
            len(short),
            0,
            "cells_short" if short else "cells_measured",
            {"n": len(short), "k": k, "cells": short} if short else {"k": k},
        ),
        Check(
            "judged",
            not unjudged,
            len(unjudged),
            0,
            "tasks_unjudged" if unjudged else "tasks_judged",
            {"n": len(unjudged), "tasks": unjudged} if unjudged else {},
        ),
    ]


def _domain_checks(gate: Thresholds, k: int, domains: Sequence[str], report: Report) -> list[Check]:
    """Per domain: the lower end of pass^k's 95% interval at least the suite's bound."""
    checks = []
    floor = gate.pass_hat_k_lower
    for domain in domains:
        estimate = report.by_domain.get(domain, {}).get(k)
        params: dict[str, Any] = {"domain": domain, "k": k, "floor": floor}
        if estimate is not None:
            params |= {"value": estimate.value, "low": estimate.low, "high": estimate.high}
        low = estimate.low if estimate is not None else 0.0
        checks.append(
            Check(
                f"pass^{k} lower bound · {domain}",
                estimate is not None and low >= floor,
                low,
                floor,
                "lower_bound" if estimate is not None else "lower_bound_unmeasured",
                params,
            )
        )
    return checks


def _floor_checks(
    gate: Thresholds, k: int, report: Report, extra: Mapping[str, Any]
) -> list[Check]:
    """One check per persona floor (pass^k over every domain for that customer) and per
    domain x persona cell floor (the heatmap's pass^k), on the point estimate: a cell that
    could not be estimated (no task with k measured trials) fails its floor."""
    checks: list[Check] = []
    for persona, floor in sorted(gate.persona_floors.items()):
        estimate = report.by_persona.get(persona, {}).get(k)
        value = estimate.value if estimate is not None else None
        checks.append(
            _floor_check(
                f"pass^{k} floor · {persona}", "persona_floor", value, floor, persona=persona, k=k
            )
        )
    cells = (extra.get("heatmap") or {}).get("cells", {})
    for domain, floors in sorted(gate.cell_floors.items()):
        for persona, floor in sorted(floors.items()):
            value = (cells.get(f"{domain}|{persona}") or {}).get("passk")
            checks.append(
                _floor_check(
                    f"pass^{k} floor · {domain} x {persona}",
                    "cell_floor",
                    value,
                    floor,
                    domain=domain,
                    persona=persona,
                    k=k,
                )
            )
    return checks


def _floor_check(name: str, code: str, value: float | None, floor: float, **where: Any) -> Check:
    """A floor on a point estimate; one that could not be estimated (None) fails it."""
    return Check(
        name,
        value is not None and value >= floor,
        value if value is not None else 0.0,
        floor,
        code,
        {**where, "value": value, "floor": floor},
    )


def _overall_checks(gate: Thresholds, report: Report, extra: Mapping[str, Any]) -> list[Check]:
    """pass^1 over the whole run, and the policy violations the guard recorded."""
    p1 = report.pass_hat.get(1)
    violations = int(extra["policy_violations"])
    return [
        Check(
            "pass^1",
            p1 is not None and p1.value >= gate.pass_hat_1,
            p1.value if p1 else 0.0,
            gate.pass_hat_1,
            "pass_1" if p1 else "pass_1_unmeasured",
            {"value": p1.value, "min": gate.pass_hat_1} if p1 else {},
        ),
        Check(
            "policy_violations",
            violations <= gate.max_policy_violations,
            violations,
            gate.max_policy_violations,
            "policy_violations",
            {"n": violations, "max": gate.max_policy_violations},
        ),
    ]


def sensitivity_check(domains: Sequence[str], evidence: Mapping[str, Any]) -> Check:
    """The oracle's self-test evidence at the code version the run's trials ran on: every
    applicable fault caught on at least MIN_SENSITIVITY of its tasks, in every domain."""
    found = evidence.get("domains") or {}
    version = evidence.get("code_version", "")
    missing = [d for d in domains if not found.get(d)]
    if missing:
        params = {"version": version, "domains": missing}
        return Check("oracle_sensitivity", False, 0.0, MIN_SENSITIVITY, "selftest_missing", params)
    lowest: tuple[float, str, dict[str, Any]] | None = None
    short: list[dict[str, Any]] = []
    for domain in domains:
        measured = {f: r for f, r in found[domain]["faults"].items() if r["applicable"]}
        if not measured:
            # No fault applies to any of its tasks: the self-test vouches for nothing there.
            lowest = (0.0, domain, {"domain": domain})
            short.append({"domain": domain})
        for fault, r in measured.items():
            item = {
                "domain": domain,
                "fault": fault,
                "caught": r["caught"],
                "applicable": r["applicable"],
            }
            rate = r["caught"] / r["applicable"]
            candidate = (rate, fault_line(item), item)
            lowest = candidate if lowest is None else min(lowest, candidate, key=lambda t: t[:2])
            if rate < MIN_SENSITIVITY:
                short.append(item)
    params = {
        "ids": ", ".join(sorted({f"#{found[d]['selftest']}" for d in domains})),
        "version": version,
        "min": MIN_SENSITIVITY * 100,
    }
    if short:
        params["short"] = short
    else:
        params["lowest"] = lowest[2] if lowest else None
    observed = lowest[0] if lowest else 1.0
    code = "selftest_short" if short else "selftest_ok"
    return Check("oracle_sensitivity", not short, observed, MIN_SENSITIVITY, code, params)


def evaluate(
    *,
    gate: Thresholds,
    k: int,
    domains: Sequence[str],
    report: Report,
    extra: Mapping[str, Any],
) -> tuple[str, list[Check]]:
    """('pass' | 'fail' | 'error', checks) for a run's report and its summary's extras
    (policy violations, the heatmap, the tasks no judge judged, the self-test evidence)."""
    spoiled = _error_checks(gate, report, extra)
    coverage = _coverage_checks(k, report, extra)
    checks = [
        *spoiled,
        *coverage,
        *_domain_checks(gate, k, domains, report),
        *_floor_checks(gate, k, report, extra),
        *_overall_checks(gate, report, extra),
        sensitivity_check(domains, extra.get("selftest") or {}),
    ]
    if not all(c.ok for c in (*spoiled, *coverage)):
        # Either way the agent was not measured on enough trials to judge it: no verdict.
        return "error", checks
    return ("pass" if all(c.ok for c in checks) else "fail"), checks


__all__ = ["ENGLISH", "MIN_SENSITIVITY", "Check", "Thresholds", "evaluate", "sensitivity_check"]
