"""Reads for the go-live pages, the API and the command. Lists never load trajectories."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import QuerySet

from backoffice.errors import NotFound
from evals.models import EvalRun, EvalSelftest, TrialOutcome, TrialResult

LIST_DEFER = ("trajectory", "diff", "notes", "components", "error")


def run_list(*, suite: str = "", status: str = "") -> QuerySet[EvalRun]:
    qs = EvalRun.objects.select_related("started_by").defer("suite_snapshot", "summary")
    if suite:
        qs = qs.filter(suite_name=suite)
    if status:
        qs = qs.filter(status=status)
    return qs


def run_get(*, run_id: int) -> EvalRun:
    run = EvalRun.objects.select_related("started_by").filter(pk=run_id).first()
    if run is None:
        raise NotFound("No such run.")
    return run


def run_trials(
    *, run_id: int, outcome: str = "", domain: str = "", persona: str = ""
) -> QuerySet[TrialResult]:
    qs = TrialResult.objects.filter(run_id=run_id).defer(*LIST_DEFER)
    if outcome:
        qs = qs.filter(outcome=outcome)
    if domain:
        qs = qs.filter(domain=domain)
    if persona:
        qs = qs.filter(persona=persona)
    return qs


def run_failing_trials(*, run_id: int, limit: int = 200) -> QuerySet[TrialResult]:
    return (
        run_trials(run_id=run_id)
        .exclude(outcome=TrialOutcome.PASS)
        .order_by("failure_class", "domain", "task_id", "persona", "trial")[:limit]
    )


def run_trials_done(*, run_id: int) -> int:
    return TrialResult.objects.filter(run_id=run_id).count()


def trial_get(*, run_id: int, trial_id: int) -> TrialResult:
    trial = (
        TrialResult.objects.select_related("run", "ticket")
        .filter(pk=trial_id, run_id=run_id)
        .first()
    )
    if trial is None:
        raise NotFound("No such trial.")
    return trial


def selftest_latest(*, domains: list[str] | None = None) -> EvalSelftest | None:
    """The newest selftest covering all of `domains` (any, when None)."""
    for selftest in EvalSelftest.objects.select_related("started_by")[:50]:
        if domains is None or set(domains) <= set(selftest.domains):
            return selftest
    return None


@dataclass(frozen=True)
class PairedCell:
    domain: str
    task_id: str
    persona: str
    a_rate: float
    b_rate: float
    a_n: int
    b_n: int

    @property
    def delta(self) -> float:
        return self.b_rate - self.a_rate

    @property
    def key(self) -> str:
        return f"{self.domain}/{self.task_id}/{self.persona}"


@dataclass(frozen=True)
class Comparison:
    a: EvalRun
    b: EvalRun
    cells: list[PairedCell]
    only_a: list[str]
    only_b: list[str]

    @property
    def regressions(self) -> list[PairedCell]:
        return [c for c in self.cells if c.delta < 0]

    @property
    def improvements(self) -> list[PairedCell]:
        return [c for c in self.cells if c.delta > 0]

    @property
    def mean_delta(self) -> float:
        return sum(c.delta for c in self.cells) / len(self.cells) if self.cells else 0.0


def _rates(run_id: int) -> dict[tuple[str, str, str], tuple[int, int]]:
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    rows = TrialResult.objects.filter(run_id=run_id, infrastructure=False).values_list(
        "domain", "task_id", "persona", "reward"
    )
    for domain, task, persona, reward in rows:
        cell = counts[(domain, task, persona)]
        cell[0] += 1
        cell[1] += 1 if reward >= 1.0 else 0
    return {k: (n, c) for k, (n, c) in counts.items()}


def run_compare(*, run_a: int, run_b: int) -> Comparison:
    """Paired per-task differences (same domain, task and persona in both runs), the
    regressions first (largest drop first), then unchanged, then improvements."""
    a, b = run_get(run_id=run_a), run_get(run_id=run_b)
    ra, rb = _rates(a.pk), _rates(b.pk)
    cells = [
        PairedCell(
            key[0],
            key[1],
            key[2],
            ra[key][1] / ra[key][0],
            rb[key][1] / rb[key][0],
            ra[key][0],
            rb[key][0],
        )
        for key in sorted(ra.keys() & rb.keys())
    ]
    cells.sort(key=lambda c: (c.delta, c.key))
    return Comparison(
        a=a,
        b=b,
        cells=cells,
        only_a=sorted("/".join(k) for k in ra.keys() - rb.keys()),
        only_b=sorted("/".join(k) for k in rb.keys() - ra.keys()),
    )
