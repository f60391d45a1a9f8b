"""Two runs side by side, as a release manager decides between them (reads only).

Per domain and per persona: pass^1 and pass^k of each run over the cells (domain, task,
persona) both runs measured, each with a 95 % band from a *paired* bootstrap: every
resample draws the same shared cells for both runs, so the difference's band is that of
the same customers, not of two independent draws. A row is marked when the two runs' bands
do not overlap. Then the cells that flipped (every trial passed in one run, not in the
other) with a trial of each run to open, and cost, turns and seconds per trial. Never a flat
list of every trial: a 10,000-trial run pair gives a page of aggregates and flips.
"""

from __future__ import annotations

import functools
import math
import random
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Min, Q, Sum
from django.utils.translation import gettext

from evals.engine.metrics import pass_hat_k
from evals.models import EXCLUDED_OUTCOMES, EvalRun, RunStatus, TrialResult
from evals.selectors import run_get
from evals.services.gate import CELL_COLUMNS

FINISHED = (RunStatus.COMPLETED, RunStatus.ERROR)

ITERATIONS = 1000
# Above this many shared cells in a group the bands come from the paired t-interval: the
# bootstrap's resampling would cost seconds of a page's time for the same answer.
BOOTSTRAP_MAX_CELLS = 100
LEVEL = 0.95
# Flipped cells shown on the page (the count is always given in full).
FLIPS_SHOWN = 200

Key = tuple[str, str, str]  # domain, task, persona
# A cell's pass^k depends only on (n, c, k), and a comparison asks for it once per cell,
# k and grouping (overall, domain, persona): memoised, the binomials are computed a few
# hundred times instead of ~13,000 at 10,000 trials per run.
_pass_hat_k = functools.lru_cache(maxsize=4096)(pass_hat_k)


@dataclass
class _Cell:
    n: int = 0
    c: int = 0
    first: int | None = None  # the first trial of the cell (by trial number)
    first_failing: int | None = None


@dataclass
class _Usage:
    trials: int = 0
    cost_micros: int = 0
    agent_turns: int = 0
    seconds: float = 0.0

    def per_trial(self) -> dict[str, float | None]:
        if not self.trials:
            return {"cost_usd": None, "turns": None, "seconds": None}
        return {
            "cost_usd": self.cost_micros / self.trials / 1_000_000,
            "turns": self.agent_turns / self.trials,
            "seconds": self.seconds / self.trials,
        }


@dataclass
class _RunCells:
    cells: dict[Key, _Cell] = field(default_factory=dict)
    usage: dict[str, _Usage] = field(default_factory=lambda: defaultdict(_Usage))


def _add_cell(out: _RunCells, r: Mapping[str, Any]) -> None:
    out.cells[(r["domain"], r["task_id"], r["persona"])] = _Cell(
        n=r["n"], c=r["c"], first=r["first"], first_failing=r["first_failing"]
    )
    for scope in ("", r["domain"]):
        u = out.usage[scope]
        u.trials += r["n"]
        u.cost_micros += r["cost"] or 0
        u.agent_turns += r["agent_turns"] or 0
        u.seconds += r["seconds"] or 0.0


def _load(run: EvalRun) -> _RunCells:
    """Per cell: measured trials, passes and a trial to link to; per domain (and "") the
    cost, turns and seconds of every measured trial. A finished run's summary holds them
    (computed at finalise, evals.services.gate.cell_rows): no trial row is read. Otherwise
    (a run still going, or finished before summaries had cells) one grouped query, a row
    per cell: at 10,000 trials it costs ~0.3 s on SQLite, which reads every trial's row
    (trajectory included) to aggregate it."""
    out = _RunCells()
    cells = (run.summary or {}).get("cells")
    if run.status in FINISHED and cells is not None:
        for values in cells:
            _add_cell(out, dict(zip(CELL_COLUMNS, values, strict=True)))
        return out
    passed = Q(reward__gte=1.0)
    rows = (
        TrialResult.objects.filter(run_id=run.pk)
        .exclude(outcome__in=EXCLUDED_OUTCOMES)
        .order_by()
        .values("domain", "task_id", "persona")
        .annotate(
            n=Count("id"),
            c=Count("id", filter=passed),
            first=Min("id"),
            first_failing=Min("id", filter=~passed),
            cost=Sum("agent_cost_micros") + Sum("user_cost_micros"),
            agent_turns=Sum("agent_turns"),
            seconds=Sum("seconds"),
        )
    )
    for r in rows:
        _add_cell(out, r)
    return out


def _t_band(values: list[float], *, clamp: bool) -> tuple[float, float]:
    m = len(values)
    mean = sum(values) / m
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (m - 1)) if m > 1 else 0.0
    half = 1.96 * sd / math.sqrt(m)
    if clamp:  # a rate's band stays within [0, 1]
        return (max(0.0, mean - half), min(1.0, mean + half))
    return (mean - half, mean + half)


def _band(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return (
        ordered[int((1 - LEVEL) / 2 * len(ordered))],
        ordered[min(len(ordered) - 1, int((1 + LEVEL) / 2 * len(ordered)))],
    )


@dataclass(frozen=True)
class Side:
    value: float
    low: float
    high: float


@dataclass(frozen=True)
class Row:
    """One group (a domain, a persona, or every shared cell) at one k."""

    label: str
    k: int
    cells: int
    a: Side
    b: Side
    delta: float
    delta_low: float
    delta_high: float

    @property
    def pass_label(self) -> str:
        return f"pass^{self.k}"

    @property
    def separated(self) -> bool:
        """The two runs' bands do not overlap."""
        return self.a.high < self.b.low or self.b.high < self.a.low

    @property
    def worse(self) -> bool:
        return self.separated and self.delta < 0

    @property
    def better(self) -> bool:
        return self.separated and self.delta > 0


def paired_row(
    label: str, pairs: list[tuple[tuple[int, int], tuple[int, int]]], k: int, seed: int
) -> Row | None:
    """pass^k of A and B over the same cells, with a paired bootstrap's bands (None when no
    shared cell has k measured trials in both runs)."""
    values = [
        (_pass_hat_k(na, ca, k), _pass_hat_k(nb, cb, k))
        for (na, ca), (nb, cb) in pairs
        if na >= k and nb >= k
    ]
    if not values:
        return None
    m = len(values)
    a_value = sum(v[0] for v in values) / m
    b_value = sum(v[1] for v in values) / m
    if m > BOOTSTRAP_MAX_CELLS:
        # Many cells: the paired t-interval (the bootstrap's limit, in a millisecond).
        (a_low, a_high), (b_low, b_high), (d_low, d_high) = (
            _t_band([v[0] for v in values], clamp=True),
            _t_band([v[1] for v in values], clamp=True),
            _t_band([v[1] - v[0] for v in values], clamp=False),
        )
    else:
        rng = random.Random(f"{seed}|{label}|{k}")
        a_means, b_means, deltas = [], [], []
        for _ in range(ITERATIONS):
            picks = rng.choices(values, k=m)
            a_mean = sum(p[0] for p in picks) / m
            b_mean = sum(p[1] for p in picks) / m
            a_means.append(a_mean)
            b_means.append(b_mean)
            deltas.append(b_mean - a_mean)
        a_low, a_high = _band(a_means)
        b_low, b_high = _band(b_means)
        d_low, d_high = _band(deltas)
    return Row(
        label=label,
        k=k,
        cells=m,
        a=Side(a_value, a_low, a_high),
        b=Side(b_value, b_low, b_high),
        delta=b_value - a_value,
        delta_low=d_low,
        delta_high=d_high,
    )


@dataclass(frozen=True)
class Flip:
    domain: str
    task_id: str
    persona: str
    a_rate: float
    b_rate: float
    a_trial: int | None
    b_trial: int | None

    @property
    def regression(self) -> bool:
        return self.b_rate < self.a_rate

    @property
    def key(self) -> str:
        return f"{self.domain}/{self.task_id}/{self.persona}"


@dataclass(frozen=True)
class RunComparison:
    a: EvalRun
    b: EvalRun
    k: int
    overall: list[Row]
    by_domain: list[Row]
    by_persona: list[Row]
    flips: list[Flip]
    flips_total: int
    regressions: int
    fixes: int
    shared: int
    only_a: int
    only_b: int
    usage: list[dict[str, Any]]


def _run_k(run: EvalRun) -> int:
    summary = run.summary or {}
    return int(summary.get("gate_k") or run.trials_per_task or 1)


def _flip(key: Key, ca: _Cell, cb: _Cell) -> Flip | None:
    a_all, b_all = ca.c == ca.n, cb.c == cb.n
    if a_all == b_all:
        return None
    return Flip(
        domain=key[0],
        task_id=key[1],
        persona=key[2],
        a_rate=ca.c / ca.n,
        b_rate=cb.c / cb.n,
        # The trial that shows the difference: the failing one on the side that failed.
        a_trial=ca.first if a_all else ca.first_failing,
        b_trial=cb.first if b_all else cb.first_failing,
    )


def run_comparison(*, run_a: int, run_b: int) -> RunComparison:
    a, b = run_get(run_id=run_a), run_get(run_id=run_b)
    ra, rb = _load(a), _load(b)
    shared = sorted(ra.cells.keys() & rb.cells.keys())
    k = max(1, min(_run_k(a), _run_k(b)))
    ks = sorted({1, k})
    seed = a.seed ^ b.seed

    def rows(groups: dict[str, list[Key]]) -> list[Row]:
        out = []
        for label, keys in groups.items():
            pairs = [((ra.cells[x].n, ra.cells[x].c), (rb.cells[x].n, rb.cells[x].c)) for x in keys]
            for kk in ks:
                row = paired_row(label, pairs, kk, seed)
                if row is not None:
                    out.append(row)
        return out

    domains: dict[str, list[Key]] = defaultdict(list)
    personas: dict[str, list[Key]] = defaultdict(list)
    for key in shared:
        domains[key[0]].append(key)
        personas[key[2]].append(key)
    flips = [f for key in shared if (f := _flip(key, ra.cells[key], rb.cells[key]))]
    # Regressions first, the largest drop first.
    flips.sort(key=lambda f: (not f.regression, -abs(f.b_rate - f.a_rate), f.key))
    usage = []
    for scope in ["", *sorted((set(ra.usage) | set(rb.usage)) - {""})]:
        ua, ub = ra.usage[scope].per_trial(), rb.usage[scope].per_trial()
        usage.append({"scope": scope or gettext("every domain"), "a": ua, "b": ub})
    return RunComparison(
        a=a,
        b=b,
        k=k,
        overall=rows({gettext("every shared cell"): shared}),
        by_domain=rows(dict(sorted(domains.items()))),
        by_persona=rows(dict(sorted(personas.items()))),
        flips=flips[:FLIPS_SHOWN],
        flips_total=len(flips),
        regressions=sum(1 for f in flips if f.regression),
        fixes=sum(1 for f in flips if not f.regression),
        shared=len(shared),
        only_a=len(ra.cells.keys() - rb.cells.keys()),
        only_b=len(rb.cells.keys() - ra.cells.keys()),
        usage=usage,
    )
