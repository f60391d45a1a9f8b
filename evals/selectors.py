"""Reads for the go-live pages, the API and the command. Lists never load trajectories."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Max, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext

from backoffice.errors import NotFound
from evals import search
from evals.models import (
    ERROR_OUTCOMES,
    DeadlineStep,
    EvalRun,
    EvalSelftest,
    Executor,
    RunStatus,
    TrialOutcome,
    TrialResult,
)

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
        raise NotFound(gettext("No such run."))
    return run


# How many times the watchdog sends a stalled run's missing units again before it ends the run
# (evals.services.watchdog); here because the run's page and API say which comes next.
RUN_REDISPATCH_LIMIT = 1


def stall_deadline(since: dt.datetime) -> dt.datetime:
    """When a run that last progressed at `since` counts as stalled."""
    return since + dt.timedelta(seconds=settings.EVALS_RUN_STALL_SECONDS)


def run_last_progress(*, run_id: int) -> dt.datetime | None:
    """When the run's newest trial was stored."""
    last: dt.datetime | None = TrialResult.objects.filter(run_id=run_id).aggregate(
        last=Max("created_at")
    )["last"]
    return last


@dataclass(frozen=True)
class RunDeadline:
    """When a running run counts as stalled if no further trial is stored, and what the
    watchdog then does: `redispatch` (send the missing units to the workers again, once) or
    `end` (end the run *failed*, resumable, finished trials kept)."""

    at: dt.datetime
    then: DeadlineStep

    @property
    def redispatch(self) -> bool:
        return self.then == DeadlineStep.REDISPATCH


def run_deadline(*, run: EvalRun) -> RunDeadline | None:
    """The running run's deadline as the watchdog will judge it: the stored `deadline_at`,
    moved on by the newest stored trial (the watchdog extends rather than acts on a run that
    progressed). None for a run that is not running."""
    if run.status != RunStatus.RUNNING or run.deadline_at is None:
        return None
    at = run.deadline_at
    last = run_last_progress(run_id=run.pk)
    if last is not None:
        at = max(at, stall_deadline(last))
    redispatch = run.executor == Executor.CELERY and run.redispatches < RUN_REDISPATCH_LIMIT
    return RunDeadline(at=at, then=DeadlineStep.REDISPATCH if redispatch else DeadlineStep.END)


def run_error_rates(*, run: EvalRun) -> dict[str, dict[str, Any]]:
    """Infrastructure and simulator errors of a finished run, apart: count, rate over all
    trials, and the suite's threshold (None for a suite older than that threshold)."""
    summary = run.summary or {}
    report = summary.get("report", {})
    gate = (run.suite_snapshot or {}).get("gate", {})
    return {
        kind: {
            "count": summary.get(f"{kind}_errors", report.get(f"{kind}_errors", 0)),
            "rate": summary.get(f"{kind}_error_rate", report.get(f"{kind}_error_rate", 0.0)),
            "max_rate": gate.get(f"max_{kind}_error_rate"),
        }
        for kind in ("infrastructure", "simulator")
    }


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


# The run page's failing list and the trial page's previous/next step through the failing
# trials in this order; the partial index evals_trial_failing (models) holds exactly these
# rows in it, so a page of them is read without sorting the run's thousands of failures.
FAILING_ORDER = ("failure_class", "domain", "task_id", "persona", "trial", "id")


def run_failing_trials(*, run_id: int, limit: int = 200) -> QuerySet[TrialResult]:
    return (
        run_trials(run_id=run_id)
        .exclude(outcome=TrialOutcome.PASS)
        .order_by(*FAILING_ORDER)[:limit]
    )


def run_trials_done(*, run_id: int) -> int:
    return TrialResult.objects.filter(run_id=run_id).count()


def run_trials_finished(*, run_id: int) -> int:
    """Stored rows a resume keeps: passes and fails (errors are re-run)."""
    return TrialResult.objects.filter(run_id=run_id).exclude(outcome__in=ERROR_OUTCOMES).count()


def run_error_counts(*, run_id: int) -> dict[str, int]:
    """Stored infrastructure and simulator errors (what a resume would re-run)."""
    counts = dict(
        TrialResult.objects.filter(run_id=run_id, outcome__in=ERROR_OUTCOMES)
        .values_list("outcome")
        .annotate(n=Count("id"))
        .values_list("outcome", "n")
    )
    return {o.value: counts.get(o.value, 0) for o in ERROR_OUTCOMES}


def trial_get(*, run_id: int, trial_id: int) -> TrialResult:
    trial = (
        TrialResult.objects.select_related("run", "ticket")
        .filter(pk=trial_id, run_id=run_id)
        .first()
    )
    if trial is None:
        raise NotFound(gettext("No such trial."))
    return trial


def selftest_get(*, selftest_id: int) -> EvalSelftest | None:
    return EvalSelftest.objects.select_related("started_by").filter(pk=selftest_id).first()


def selftest_latest(*, domains: list[str] | None = None) -> EvalSelftest | None:
    """The newest selftest covering all of `domains` (any, when None)."""
    for selftest in EvalSelftest.objects.select_related("started_by")[:50]:
        if domains is None or set(domains) <= set(selftest.domains):
            return selftest
    return None


def run_trials_with_other_models(*, run: EvalRun, limit: int = 200) -> list[TrialResult]:
    """Trials answered by another model than most of the run's (a provider switching
    snapshots mid-run, a fallback): shown per trial on the report and by `golive show`.
    Nothing when the run resolved to one model per role."""
    if "," not in run.agent_model_resolved and "," not in run.user_model_resolved:
        return []
    trials = TrialResult.objects.filter(run_id=run.pk)
    usual: dict[str, str] = {}
    for role in ("agent_model", "user_model"):
        top = (
            trials.exclude(**{role: ""})
            .values_list(role)
            .annotate(n=Count("id"))
            .order_by("-n", role)
            .values_list(role, flat=True)
            .first()
        )
        usual[role] = top or ""
    other = Q()
    for role, model in usual.items():
        if model:
            other |= ~Q(**{role: model}) & ~Q(**{role: ""})
    return list(trials.filter(other).defer(*LIST_DEFER)[:limit])


def trial_failing_neighbours(*, trial: TrialResult) -> tuple[int | None, int | None, int, int]:
    """The failing trials before and after `trial` in the run's failing list (the order the
    run page lists them in), its position in that list (1-based, 0 when it passed) and the
    list's length: what the trial page's previous/next buttons step through."""
    ids = list(
        TrialResult.objects.filter(run_id=trial.run_id)
        .exclude(outcome=TrialOutcome.PASS)
        .order_by(*FAILING_ORDER)
        .values_list("id", flat=True)
    )
    if trial.pk not in ids:
        return (ids[0] if ids else None), None, 0, len(ids)
    at = ids.index(trial.pk)
    before = ids[at - 1] if at > 0 else None
    after = ids[at + 1] if at + 1 < len(ids) else None
    return before, after, at + 1, len(ids)


def trial_cell_siblings(*, trial: TrialResult) -> list[TrialResult]:
    """Every trial of the same task and persona in the run (its cell's repetitions), with
    their trajectories: the side-by-side view compares what the agent did each time."""
    return list(
        TrialResult.objects.filter(
            run_id=trial.run_id, domain=trial.domain, task_id=trial.task_id, persona=trial.persona
        ).order_by("trial")
    )


@dataclass(frozen=True)
class LiveCounts:
    """A run's stored trials by outcome, from one query: what the live panel shows."""

    total: int
    done: int
    passed: int
    failed: int
    errors: int
    not_judged: int

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0

    @property
    def pass_rate(self) -> float | None:
        judged = self.passed + self.failed
        return self.passed / judged if judged else None

    @property
    def pass_percent(self) -> int | None:
        rate = self.pass_rate
        return None if rate is None else round(100 * rate)

    @property
    def not_passing(self) -> int:
        return self.failed + self.errors + self.not_judged


def run_live_counts(*, run: EvalRun) -> LiveCounts:
    by = dict(
        TrialResult.objects.filter(run_id=run.pk)
        .values_list("outcome")
        .annotate(n=Count("id"))
        .values_list("outcome", "n")
    )
    return LiveCounts(
        total=run.total_units,
        done=sum(by.values()),
        passed=by.get(TrialOutcome.PASS, 0),
        failed=by.get(TrialOutcome.FAIL, 0),
        errors=sum(by.get(o, 0) for o in ERROR_OUTCOMES),
        not_judged=by.get(TrialOutcome.NOT_JUDGED, 0),
    )


def run_latest_failing(*, run_id: int, limit: int = 20) -> list[TrialResult]:
    """The newest non-passing trials first: while a run is going, failures as they come."""
    return list(
        run_trials(run_id=run_id).exclude(outcome=TrialOutcome.PASS).order_by("-id")[:limit]
    )


@dataclass(frozen=True)
class TrialFilters:
    """What the trial list of a run is narrowed to; empty strings mean any."""

    domain: str = ""
    task: str = ""
    persona: str = ""
    outcome: str = ""
    failure: str = ""
    q: str = ""


def run_trial_search(*, run_id: int, filters: TrialFilters) -> QuerySet[TrialResult]:
    """The run's trials matching every filter; `q` searches the transcripts (what was said,
    tool calls and results, the guard's verdicts) by their search documents (evals.search):
    every word anywhere in the trial, stemmed (English), case-insensitive; Chinese by any two
    or more consecutive characters."""
    qs = run_trials(
        run_id=run_id, outcome=filters.outcome, domain=filters.domain, persona=filters.persona
    )
    if filters.task:
        qs = qs.filter(task_id__icontains=filters.task)
    if filters.failure:
        qs = qs.filter(failure_class=filters.failure)
    if filters.q:
        terms = search.search_terms(connection.vendor, filters.q)
        if not terms:
            return qs.none()
        qs = qs.filter(pk__in=RawSQL(search.MATCHING_IDS[connection.vendor], (terms,)))  # noqa: S611
    return qs.order_by("domain", "task_id", "persona", "trial")


def run_trial_facets(*, run_id: int) -> dict[str, list[str]]:
    """The values each filter can take in this run (for the filter form's choices)."""
    rows = TrialResult.objects.filter(run_id=run_id)
    # order_by(field): the model's default ordering would otherwise join the DISTINCT and
    # give one option per trial (8,000 <option>s on a 10,000-trial run).
    return {
        field: sorted(v for v in rows.order_by(field).values_list(field, flat=True).distinct() if v)
        for field in ("domain", "persona", "outcome", "failure_class")
    }


def run_history(
    *, suite_name: str, before: EvalRun | None = None, limit: int = 12
) -> list[EvalRun]:
    """The last `limit` finished runs of a suite (up to `before`, included), oldest first,
    with their summaries: what a run's history chart and table read."""
    qs = EvalRun.objects.select_related("started_by").filter(
        suite_name=suite_name, status__in=("completed", "error")
    )
    if before is not None:
        qs = qs.filter(created_at__lte=before.created_at, pk__lte=before.pk)
    return list(reversed(qs.order_by("-created_at", "-id")[:limit]))
