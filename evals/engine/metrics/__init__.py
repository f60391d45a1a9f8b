"""pass^k, pass@k, bootstrap confidence intervals and breakdowns, aggregated incrementally.

A *cell* is (domain, task, persona): its n trials and c successes. pass^k is the mean over
cells of C(c,k)/C(n,k) — the chance that k trials drawn without replacement all succeed —
never (c/n)^k. Trials that ended in an infrastructure error, a simulator error (the simulated
customer broke its scenario) or were not judged (prose assertions without a judge) are left
out of n and c, counted apart and reported with their rates. Nothing is dropped silently: a
cell with fewer than k measured trials is named (`short_cells`: a gate gives no verdict while
there is one), and every pass^k comes with its *strict* twin, the same figure with every
excluded trial counted as a failure. A record whose key was seen before replaces the earlier
one (a resumed run re-ran that unit).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any, Protocol


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c,k)/C(n,k) for one cell; ValueError when k > n (too few trials to estimate)."""
    if k < 1 or n < 0 or not 0 <= c <= n:
        raise ValueError(f"invalid n={n}, c={c}, k={k}")
    if k > n:
        raise ValueError(f"pass^{k} needs at least {k} trials per task, got {n}")
    return comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """1 - C(n-c,k)/C(n,k): the chance that at least one of k trials succeeds."""
    if k < 1 or n < 0 or not 0 <= c <= n:
        raise ValueError(f"invalid n={n}, c={c}, k={k}")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} trials per task, got {n}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def mean_pass_hat_k(cells: Iterable[tuple[int, int]], k: int) -> float:
    values = [pass_hat_k(n, c, k) for n, c in cells]
    if not values:
        raise ValueError("no task to average over")
    return sum(values) / len(values)


def bootstrap_ci(
    values: Sequence[float], *, seed: int = 0, iterations: int = 1000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap over tasks (resampling cells with replacement), seeded."""
    if not values:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(iterations))
    lo = means[int((1 - level) / 2 * iterations)]
    hi = means[min(iterations - 1, int((1 + level) / 2 * iterations))]
    return (lo, hi)


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    cells: int

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "cells": self.cells}


class RecordLike(Protocol):
    @property
    def domain(self) -> str: ...
    @property
    def task_id(self) -> str: ...
    @property
    def persona(self) -> str: ...
    @property
    def reward(self) -> float: ...
    @property
    def failure(self) -> str: ...
    @property
    def infrastructure(self) -> bool: ...
    @property
    def agent_turns(self) -> int: ...
    @property
    def questions(self) -> int: ...


@dataclass
class _Cell:
    n: int = 0
    c: int = 0
    infra: int = 0  # every excluded trial (infrastructure, simulator, not judged)

    @property
    def strict(self) -> _Cell:
        """The cell with its excluded trials counted as failures."""
        return _Cell(self.n + self.infra, self.c, 0)


@dataclass(frozen=True, slots=True)
class _Contribution:
    """What one record added, so a later record of the same key can take it back."""

    cell: tuple[str, str, str]
    excluded: bool
    simulator: bool
    reward: float
    failure: str
    agent_turns: int
    questions: int
    not_judged: bool = False
    published: float | None = None
    termination: str = ""
    published_criteria: tuple[tuple[str, float], ...] = ()


@dataclass
class Aggregator:
    """Feed trial records one at a time. Memory grows with cells plus one small entry per
    key (to replace a re-run unit's earlier record), never with the records themselves."""

    cells: dict[tuple[str, str, str], _Cell] = field(default_factory=lambda: defaultdict(_Cell))
    failures: Counter[str] = field(default_factory=Counter)
    failures_by_persona: dict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    trials: int = 0
    infrastructure_errors: int = 0
    simulator_errors: int = 0
    resolved: int = 0
    resolved_agent_turns: int = 0
    resolved_questions: int = 0
    reward_sum: float = 0.0
    not_judged: int = 0
    published_sum: float = 0.0
    published_trials: int = 0
    # How every trial ended (measured or excluded): termination reason -> trials.
    terminations: Counter[str] = field(default_factory=Counter)
    # Per criterion of the published reward: [sum, trials with a value].
    published_criteria: dict[str, list[float]] = field(
        default_factory=lambda: defaultdict(lambda: [0.0, 0])
    )
    by_key: dict[str, _Contribution] = field(default_factory=dict)

    def add(self, r: RecordLike) -> None:
        """Count `r`; a record with the key of an earlier one replaces it (records without
        a `key` attribute are all counted)."""
        simulator = bool(getattr(r, "simulator_error", False))
        not_judged = r.failure == "not_judged"
        contribution = _Contribution(
            (r.domain, r.task_id, r.persona),
            bool(r.infrastructure) or simulator or not_judged,
            simulator,
            r.reward,
            r.failure,
            r.agent_turns,
            r.questions,
            not_judged,
            getattr(r, "published_reward", None),
            str(getattr(r, "termination", "") or ""),
            tuple(
                (name, value)
                for name, value in (getattr(r, "published_criteria", None) or {}).items()
                if value is not None
            ),
        )
        key = getattr(r, "key", None)
        if key is not None:
            previous = self.by_key.get(key)
            if previous is not None:
                self._apply(previous, -1)
            self.by_key[key] = contribution
        self._apply(contribution, 1)

    def _apply(self, x: _Contribution, sign: int) -> None:
        cell = self.cells[x.cell]
        self.trials += sign
        if x.termination:
            self.terminations[x.termination] += sign
            if self.terminations[x.termination] == 0:
                del self.terminations[x.termination]
        if x.excluded:
            cell.infra += sign
            if x.simulator:
                self.simulator_errors += sign
            elif x.not_judged:
                self.not_judged += sign
            else:
                self.infrastructure_errors += sign
            return
        cell.n += sign
        self.reward_sum += sign * x.reward
        if x.published is not None:
            self.published_sum += sign * x.published
            self.published_trials += sign
        for name, value in x.published_criteria:
            total = self.published_criteria[name]
            total[0] += sign * value
            total[1] += sign
            if total[1] == 0:
                del self.published_criteria[name]
        if x.reward >= 1.0:
            cell.c += sign
            self.resolved += sign
            self.resolved_agent_turns += sign * x.agent_turns
            self.resolved_questions += sign * x.questions
        else:
            self.failures[x.failure] += sign
            self.failures_by_persona[x.cell[2]][x.failure] += sign
            if self.failures[x.failure] == 0:
                del self.failures[x.failure]
            if self.failures_by_persona[x.cell[2]][x.failure] == 0:
                del self.failures_by_persona[x.cell[2]][x.failure]

    def report(self, ks: Sequence[int], *, seed: int = 0) -> Report:
        return summarise_cells(self, ks, seed=seed)


@dataclass(frozen=True)
class Report:
    ks: tuple[int, ...]
    trials: int
    evaluated: int
    mean_reward: float
    pass_hat: Mapping[int, Estimate]
    pass_at: Mapping[int, Estimate]
    by_persona: Mapping[str, Mapping[int, Estimate]]
    by_domain: Mapping[str, Mapping[int, Estimate]]
    failures: Mapping[str, int]
    failures_by_persona: Mapping[str, Mapping[str, int]]
    infrastructure_errors: int
    all_errored: tuple[str, ...]
    insufficient: Mapping[int, int]
    agent_turns_per_resolved: float
    questions_per_resolved: float
    # Infrastructure errors and simulator errors are counted apart; the rates are over all
    # trials so a gate can fail the run when either passes its threshold.
    simulator_errors: int = 0
    infrastructure_error_rate: float = 0.0
    simulator_error_rate: float = 0.0
    # Trials that passed every deterministic check but whose natural-language assertions
    # were not judged (the run had no judge model): neither passes nor failures.
    not_judged: int = 0
    # The same figures with every excluded trial counted as a failure.
    pass_hat_strict: Mapping[int, Estimate] = field(default_factory=dict)
    by_domain_strict: Mapping[str, Mapping[int, Estimate]] = field(default_factory=dict)
    by_persona_strict: Mapping[str, Mapping[int, Estimate]] = field(default_factory=dict)
    # Per k: the cells ("domain/task/persona") with fewer than k measured trials.
    short_cells: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    # A published benchmark's own reward (τ²-bench's, by its definition), averaged over the
    # evaluated trials that have one: shown beside ours, never part of it.
    published_mean_reward: float | None = None
    published_trials: int = 0
    # How the trials ended, every trial counted (customer stop, agent end, hand-off, abandon,
    # each limit, errors), most frequent first: beside the failure classes, it tells "180
    # omissions" that were 180 trials cut off at the tool-error limit.
    terminations: Mapping[str, int] = field(default_factory=dict)
    # Its criteria (τ²'s database, communicate, env assertions, actions...): (mean, trials)
    # over the evaluated trials that have a value for it.
    published_criteria: Mapping[str, tuple[float, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        def est(m: Mapping[int, Estimate]) -> dict[str, Any]:
            return {str(k): e.to_dict() for k, e in m.items()}

        return {
            "ks": list(self.ks),
            "trials": self.trials,
            "evaluated": self.evaluated,
            "mean_reward": self.mean_reward,
            "pass_hat": est(self.pass_hat),
            "pass_at": est(self.pass_at),
            "by_persona": {p: est(m) for p, m in self.by_persona.items()},
            "by_domain": {d: est(m) for d, m in self.by_domain.items()},
            "failures": dict(self.failures),
            "failures_by_persona": {p: dict(c) for p, c in self.failures_by_persona.items()},
            "infrastructure_errors": self.infrastructure_errors,
            "all_errored": list(self.all_errored),
            "insufficient": {str(k): v for k, v in self.insufficient.items()},
            "agent_turns_per_resolved": self.agent_turns_per_resolved,
            "questions_per_resolved": self.questions_per_resolved,
            "simulator_errors": self.simulator_errors,
            "infrastructure_error_rate": self.infrastructure_error_rate,
            "simulator_error_rate": self.simulator_error_rate,
            "not_judged": self.not_judged,
            "pass_hat_strict": est(self.pass_hat_strict),
            "by_domain_strict": {d: est(m) for d, m in self.by_domain_strict.items()},
            "by_persona_strict": {p: est(m) for p, m in self.by_persona_strict.items()},
            "short_cells": {str(k): list(v) for k, v in self.short_cells.items()},
            "published_mean_reward": self.published_mean_reward,
            "published_trials": self.published_trials,
            "terminations": dict(self.terminations),
            "published_criteria": {k: list(v) for k, v in self.published_criteria.items()},
        }


def _estimate(cells: list[_Cell], k: int, fn: Any, seed: int) -> Estimate | None:
    values = [fn(c.n, c.c, k) for c in cells if c.n >= k]
    if not values:
        return None
    lo, hi = bootstrap_ci(values, seed=seed + k)
    return Estimate(sum(values) / len(values), lo, hi, len(values))


def _by(
    agg: Aggregator, index: int, ks: Sequence[int], seed: int, *, strict: bool = False
) -> dict[str, dict[int, Estimate]]:
    groups: dict[str, list[_Cell]] = defaultdict(list)
    for key, cell in agg.cells.items():
        groups[key[index]].append(cell.strict if strict else cell)
    out: dict[str, dict[int, Estimate]] = {}
    for name, cells in sorted(groups.items()):
        row = {k: e for k in ks if (e := _estimate(cells, k, pass_hat_k, seed)) is not None}
        out[name] = row
    return out


def summarise_cells(agg: Aggregator, ks: Sequence[int], *, seed: int = 0) -> Report:
    cells = list(agg.cells.values())
    pass_hat = {k: e for k in ks if (e := _estimate(cells, k, pass_hat_k, seed)) is not None}
    pass_at = {k: e for k in ks if (e := _estimate(cells, k, pass_at_k, seed)) is not None}
    all_errored = tuple(
        "/".join(key) for key, cell in agg.cells.items() if cell.n == 0 and cell.infra > 0
    )
    evaluated = sum(c.n for c in cells)
    strict = [c.strict for c in cells]
    return Report(
        ks=tuple(ks),
        trials=agg.trials,
        evaluated=evaluated,
        mean_reward=agg.reward_sum / evaluated if evaluated else 0.0,
        pass_hat=pass_hat,
        pass_at=pass_at,
        by_persona=_by(agg, 2, ks, seed),
        by_domain=_by(agg, 0, ks, seed),
        failures=dict(agg.failures.most_common()),
        failures_by_persona={p: dict(c.most_common()) for p, c in agg.failures_by_persona.items()},
        infrastructure_errors=agg.infrastructure_errors,
        all_errored=all_errored,
        insufficient={k: sum(1 for c in cells if c.n < k) for k in ks},
        agent_turns_per_resolved=agg.resolved_agent_turns / agg.resolved if agg.resolved else 0.0,
        questions_per_resolved=agg.resolved_questions / agg.resolved if agg.resolved else 0.0,
        simulator_errors=agg.simulator_errors,
        infrastructure_error_rate=agg.infrastructure_errors / agg.trials if agg.trials else 0.0,
        simulator_error_rate=agg.simulator_errors / agg.trials if agg.trials else 0.0,
        not_judged=agg.not_judged,
        pass_hat_strict={
            k: e for k in ks if (e := _estimate(strict, k, pass_hat_k, seed)) is not None
        },
        by_domain_strict=_by(agg, 0, ks, seed, strict=True),
        by_persona_strict=_by(agg, 2, ks, seed, strict=True),
        short_cells={
            k: tuple(sorted("/".join(key) for key, c in agg.cells.items() if c.n < k)) for k in ks
        },
        published_mean_reward=(
            agg.published_sum / agg.published_trials if agg.published_trials else None
        ),
        published_trials=agg.published_trials,
        terminations=dict(agg.terminations.most_common()),
        published_criteria={
            name: (total / int(n), int(n))
            for name, (total, n) in sorted(agg.published_criteria.items())
        },
    )


def summarise(records: Iterable[RecordLike], ks: Sequence[int], *, seed: int = 0) -> Report:
    """The report over `records`; a later record of a key replaces an earlier one."""
    agg = Aggregator()
    for r in records:
        agg.add(r)
    return agg.report(ks, seed=seed)


# The plain-text table lives beside the figures (evals.engine.metrics.table).
from evals.engine.metrics.table import render_table as render_table  # noqa: E402
