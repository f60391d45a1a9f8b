"""Go-live runs: create, execute (in-process thread pool or one Celery task per trial with a
chord), resume, interrupt. Each public service writes one audit event, last, inside its
transaction. The rest of a run's life is beside it: what it is made of (`run_plan`), its
end — summary and gate verdict (`run_finalise`) — and runs started from the UI or the API
(`run_background`).

Trial rows are stored by `evals.services.store` (one idempotent statement each, no audit
event per row); the run's lifecycle (create, execute, resume, finish) is what the audit
trail records.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict, NotFound, ValidationFailed
from evals import access
from evals.engine.errors import EngineError
from evals.engine.runner import RunSpec, TrialRecord, WorkUnit, run_unit
from evals.engine.runner.execute import run as engine_run
from evals.models import EvalRun, Executor, RunStatus
from evals.run_words import error_english
from evals.selectors import stall_deadline
from evals.services.fingerprints import (
    agent_key,
    domain_fingerprints,
    resume_refusal,
    run_fingerprint_values,
)
from evals.services.run_finalise import eval_run_finalise
from evals.services.run_plan import code_version, run_suite, run_units
from evals.services.store import finished_keys, micros, trial_store, unit_finished
from evals.services.suites import Suite, SuiteError
from identity.audit import audit_record
from identity.models import Operator

RESUMABLE = (RunStatus.QUEUED, RunStatus.FAILED, RunStatus.RUNNING)


@dataclass(frozen=True)
class _RunInputs:
    specs: dict[str, RunSpec]
    fingerprints: dict[str, str]
    agent_key: bytes = field(repr=False)


# Workers load a run's suite, fingerprints and agent-seed key once per process, not per trial.
@functools.lru_cache(maxsize=32)
def _cached_inputs(run_id: int, suite_hash: str) -> _RunInputs:
    run = EvalRun.objects.only("suite_snapshot", "pk", "fingerprint_fields", "agent_seed_key").get(
        pk=run_id
    )
    specs = {spec.domains[0]: spec for spec in run_suite(run=run).specs()}
    return _RunInputs(specs, domain_fingerprints(run=run), agent_key(run=run))


def trial_execute(*, run_id: int, suite_hash: str, unit: WorkUnit) -> bool:
    """Run one unit unless a good row of it is stored; what a Celery task does. A unit whose
    row is an infrastructure or simulator error runs again and replaces it."""
    if unit_finished(run_id, unit.domain, unit.task_id, unit.persona, unit.trial):
        return False
    inputs = _cached_inputs(run_id, suite_hash)
    spec = inputs.specs[unit.domain]
    if spec.fingerprint() != inputs.fingerprints.get(unit.domain):
        # A worker running other code than the run froze: its trial would not be the run's.
        # The run stops (resumable once the workers run the run's code), and this task fails
        # so the chord never finalises a run with a gap it was told about.
        params = {
            "domain": unit.domain,
            "worker": spec.fingerprint()[:12],
            "run": inputs.fingerprints.get(unit.domain, "")[:12] or "none",
        }
        eval_run_interrupt(run_id=run_id, reason_key="fingerprint", reason_params=params)
        raise EngineError(error_english("fingerprint", params))
    record = run_unit(spec, unit, inputs.agent_key)
    return trial_store(run_id=run_id, record=record)


# -- progress -----------------------------------------------------------------------------


@dataclass
class Progress:
    """What the progress bar shows: trials done, pass rate so far, cost so far."""

    total: int
    done: int = 0
    passed: int = 0
    evaluated: int = 0
    cost_micros: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, record: TrialRecord) -> None:
        self.done += 1
        if not record.infrastructure:
            self.evaluated += 1
            self.passed += 1 if record.reward >= 1.0 else 0
        usage = record.usage or {}
        self.cost_micros += micros(usage, "agent.cost") + micros(usage, "user.cost")

    @property
    def pass_rate(self) -> float:
        return self.passed / self.evaluated if self.evaluated else 0.0


ProgressCallback = Callable[[Progress], None]


class _DbSink:
    """The engine runner's sink, writing rows; `append` runs in the consuming thread."""

    def __init__(self, run_id: int, progress: Progress, on_progress: ProgressCallback | None):
        self.run_id = run_id
        self.progress = progress
        self.on_progress = on_progress
        self._done = finished_keys(run_id=run_id)

    def finished_keys(self) -> set[str]:
        return self._done

    def append(self, record: TrialRecord) -> None:
        trial_store(run_id=self.run_id, record=record)
        self.progress.add(record)
        if self.on_progress is not None:
            self.on_progress(self.progress)


# -- services -----------------------------------------------------------------------------


def eval_run_create(
    *,
    actor: Operator,
    suite: Suite,
    executor: str = Executor.INLINE,
    workers: int | None = None,
    origin: str = "",
) -> EvalRun:
    """A queued run with its suite frozen (snapshot + sha256), the code version and the
    operator accountable for it. `origin` (e.g. `cli:user@host`) goes to the audit event."""
    access.ensure_start(actor)
    if executor not in Executor.values:
        raise ValidationFailed(
            gettext("Unknown executor."),
            fields={"executor": [gettext("Not one of %(values)s.") % {"values": Executor.values}]},
        )
    try:
        total = len(run_units(suite=suite))
    except EngineError as exc:
        raise ValidationFailed(
            gettext("The suite cannot be planned: %(exc)s") % {"exc": exc}
        ) from exc
    data = suite.data
    with transaction.atomic():
        run = EvalRun.objects.create(
            suite_name=suite.name,
            suite_snapshot=suite.snapshot(),
            suite_hash=suite.digest(),
            code_version=code_version(),
            agent_model=data.agent.model,
            agent_params=dict(data.agent.params),
            user_model=data.user.model,
            user_params=dict(data.user.params),
            seed=data.seed,
            **run_fingerprint_values(suite=suite),
            trials_per_task=data.trials,
            total_units=total,
            executor=executor,
            workers=workers or data.workers,
            started_by=actor,
        )
        audit_record(
            actor=actor,
            action="evals.run.create",
            target=run,
            after={
                "suite": run.suite_name,
                "suite_hash": run.suite_hash,
                "agent": run.agent_model,
                "user": run.user_model,
                "units": total,
                "fingerprint": run.fingerprint,
                "executor": executor,
                "origin": origin,
            },
        )
    return run


def run_start(
    *,
    actor: Operator,
    run_id: int,
    action: str,
    executor: str | None,
    workers: int | None,
    suite: Suite | None = None,
) -> tuple[EvalRun, list[WorkUnit]]:
    """The checks and the audit event every execute and resume begins with (here and in
    `run_background`): the run marked RUNNING, and its pending units; with Celery, their
    dispatch once that commits."""
    access.ensure_start(actor)
    with transaction.atomic():
        run = EvalRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            raise NotFound(gettext("No such run."))
        if run.status not in RESUMABLE:
            raise Conflict(
                gettext("Run #%(pk)s is %(lower)s; nothing to run.")
                % {"pk": run.pk, "lower": run.get_status_display().lower()}
            )
        try:
            frozen = run_suite(run=run)
        except SuiteError as exc:
            raise ValidationFailed(str(exc)) from exc
        if refusal := resume_refusal(run=run, suite=suite or frozen):
            raise Conflict(refusal)
        done = finished_keys(run_id=run.pk)
        pending = [u for u in run_units(suite=frozen) if u.key not in done]
        before = {"status": run.status, "finished": len(done)}
        run.status = RunStatus.RUNNING
        run.started_at = run.started_at or timezone.now()
        run.deadline_at = stall_deadline(timezone.now())
        run.redispatches = 0
        run.finished_at = None
        run.error_message, run.error_key, run.error_params = "", "", {}
        if executor:
            run.executor = executor
        if workers:
            run.workers = workers
        run.save(
            update_fields=[
                "status",
                "started_at",
                "finished_at",
                "error_message",
                "error_key",
                "error_params",
                "executor",
                "workers",
                "deadline_at",
                "redispatches",
            ]
        )
        if run.executor == Executor.CELERY:
            # Fan out only once the RUNNING status is committed: a fast worker must find it.
            transaction.on_commit(
                functools.partial(
                    dispatch_celery, run_id=run.pk, suite_hash=run.suite_hash, pending=pending
                )
            )
        audit_record(
            actor=actor,
            action=action,
            target=run,
            before=before,
            after={"status": run.status, "pending": len(pending), "executor": run.executor},
        )
    return run, pending


def dispatch_celery(*, run_id: int, suite_hash: str, pending: list[WorkUnit]) -> None:
    from celery import chord

    from evals import tasks

    if not pending:
        tasks.run_finalise.delay(run_id)
        return
    header = [tasks.run_trial.s(run_id, suite_hash, unit.to_dict()) for unit in pending]
    chord(header)(tasks.run_finalise.si(run_id))


def _execute_inline(
    run: EvalRun, pending: list[WorkUnit], on_progress: ProgressCallback | None
) -> None:
    suite = run_suite(run=run)
    progress = Progress(total=len(pending))
    for spec in suite.specs():
        sink = _DbSink(run.pk, progress, on_progress)
        engine_run(
            spec, sink, workers=run.workers, resume=True, ks=(1,), agent_key=agent_key(run=run)
        )


def run_pending(
    *, run: EvalRun, pending: list[WorkUnit], on_progress: ProgressCallback | None
) -> EvalRun:
    """In-process, run the pending units now and finalise; with Celery, they were dispatched."""
    if run.executor == Executor.CELERY:
        return run
    try:
        _execute_inline(run, pending, on_progress)
    except BaseException as exc:
        # A crash or ^C leaves the finished rows; the run becomes resumable, not lost.
        eval_run_interrupt(
            run_id=run.pk,
            reason_key="crashed",
            reason_params={"error": f"{type(exc).__name__}: {exc}"[:500]},
        )
        raise
    return eval_run_finalise(run_id=run.pk)


def eval_run_execute(
    *,
    actor: Operator,
    run_id: int,
    executor: str | None = None,
    workers: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> EvalRun:
    """Run every pending unit. In-process: a thread pool here, then finalise. Celery: one
    task per unit in a chord whose callback finalises; returns once dispatched."""
    run, pending = run_start(
        actor=actor, run_id=run_id, action="evals.run.execute", executor=executor, workers=workers
    )
    return run_pending(run=run, pending=pending, on_progress=on_progress)


def eval_run_resume(
    *,
    actor: Operator,
    run_id: int,
    executor: str | None = None,
    workers: int | None = None,
    on_progress: ProgressCallback | None = None,
    suite: Suite | None = None,
) -> EvalRun:
    """Complete an interrupted run: the finished units are skipped (their rows stay), the
    others run; the unique key means no unit is stored twice and finalise checks none is
    missing. Refused (Conflict, naming what differs) when `suite` — what the caller means to
    resume, by default the run's own — under the code installed now would not measure what
    the run measured so far."""
    run, pending = run_start(
        actor=actor,
        run_id=run_id,
        action="evals.run.resume",
        executor=executor,
        workers=workers,
        suite=suite,
    )
    return run_pending(run=run, pending=pending, on_progress=on_progress)


def eval_run_interrupt(
    *,
    run_id: int,
    reason_key: str,
    reason_params: dict[str, Any],
    actor: Operator | None = None,
) -> EvalRun:
    """Mark a running run as failed (resumable) — after a crash, ^C or a lost worker. The
    reason is a key of evals.run_words.ERRORS and its values, worded when shown."""
    reason = error_english(reason_key, reason_params)
    with transaction.atomic():
        run = EvalRun.objects.select_for_update().get(pk=run_id)
        if run.status != RunStatus.RUNNING:
            return run
        run.status = RunStatus.FAILED
        run.error_message = reason
        run.error_key, run.error_params = reason_key, reason_params
        run.finished_at = timezone.now()
        run.save(
            update_fields=["status", "error_message", "error_key", "error_params", "finished_at"]
        )
        audit_record(
            actor=actor,
            action="evals.run.interrupt",
            target=run,
            after={"status": run.status, "reason": reason},
        )
    return run
