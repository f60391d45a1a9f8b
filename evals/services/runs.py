"""Go-live runs: create, execute (in-process thread pool or one Celery task per trial with a
chord), resume, finalise (summary + gate verdict), interrupt. Each public service writes one
audit event, last, inside its transaction.

Trial rows are stored by `evals.services.store` (one idempotent statement each, no audit
event per row); the run's lifecycle (create, execute, resume, finish) is what the audit
trail records.
"""

from __future__ import annotations

import functools
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict, NotFound, ValidationFailed
from evals import access
from evals.engine.errors import EngineError
from evals.engine.runner import RunSpec, TrialRecord, WorkUnit, plan, run_unit
from evals.engine.runner.execute import run as engine_run
from evals.models import EvalRun, Executor, RunStatus, TrialResult
from evals.run_words import error_english
from evals.selectors import stall_deadline
from evals.services.fingerprints import (
    agent_key,
    domain_fingerprints,
    resume_refusal,
    run_fingerprint_values,
)
from evals.services.gate import ROW_FIELDS, Row, gate_evaluate, summarise_rows
from evals.services.selftest import selftest_evidence
from evals.services.store import finished_keys, micros, trial_store, unit_finished
from evals.services.suites import Suite, SuiteError, suite_from_mapping
from identity.audit import audit_record
from identity.models import Operator

RESUMABLE = (RunStatus.QUEUED, RunStatus.FAILED, RunStatus.RUNNING)


@functools.cache
def code_version() -> str:
    """`git describe` of the working tree when it is a checkout, else the package version."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"],  # noqa: S607
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
        if out.stdout.strip():
            return out.stdout.strip()[:100]
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return f"backoffice {metadata.version('backoffice')}"
    except metadata.PackageNotFoundError:
        return "unknown"


def run_suite(*, run: EvalRun) -> Suite:
    return suite_from_mapping(run.suite_snapshot, source=f"run #{run.pk}")


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
    return _RunInputs(specs, domain_fingerprints(run), agent_key(run))


def spec_for_unit(run_id: int, suite_hash: str, domain: str) -> RunSpec:
    return _cached_inputs(run_id, suite_hash).specs[domain]


def run_units(*, suite: Suite) -> list[WorkUnit]:
    return [unit for spec in suite.specs() for unit in plan(spec)]


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
            **run_fingerprint_values(suite),
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


def _start(
    *,
    actor: Operator,
    run_id: int,
    action: str,
    executor: str | None,
    workers: int | None,
    suite: Suite | None = None,
) -> tuple[EvalRun, list[WorkUnit]]:
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
        if refusal := resume_refusal(run, suite or frozen):
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
                functools.partial(dispatch_celery, run.pk, run.suite_hash, pending)
            )
        audit_record(
            actor=actor,
            action=action,
            target=run,
            before=before,
            after={"status": run.status, "pending": len(pending), "executor": run.executor},
        )
    return run, pending


def dispatch_celery(run_id: int, suite_hash: str, pending: list[WorkUnit]) -> None:
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
        engine_run(spec, sink, workers=run.workers, resume=True, ks=(1,), agent_key=agent_key(run))


def _run_now(
    run: EvalRun, pending: list[WorkUnit], on_progress: ProgressCallback | None
) -> EvalRun:
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
    run, pending = _start(
        actor=actor, run_id=run_id, action="evals.run.execute", executor=executor, workers=workers
    )
    return _run_now(run, pending, on_progress)


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
    run, pending = _start(
        actor=actor,
        run_id=run_id,
        action="evals.run.resume",
        executor=executor,
        workers=workers,
        suite=suite,
    )
    return _run_now(run, pending, on_progress)


def _continue(run_id: int, pending: list[WorkUnit]) -> None:
    run = EvalRun.objects.get(pk=run_id)
    if getattr(settings, "EVALS_UI_INLINE", False):
        _run_now(run, pending, None)
        return

    def work() -> None:
        try:
            _run_now(run, pending, None)
        except Exception:  # noqa: S110 - eval_run_interrupt recorded it on the run
            pass
        finally:
            close_old_connections()

    threading.Thread(target=work, name=f"golive-resume-{run_id}", daemon=True).start()


def eval_run_resume_background(
    *, actor: Operator, run_id: int, suite: Suite | None = None
) -> EvalRun:
    """From the API: the checks of `eval_run_resume` now (a refusal is the answer), then the
    pending units in the background, as `eval_run_start_background` runs a new run."""
    celery = bool(settings.CELERY_BROKER_URL) and not settings.CELERY_TASK_ALWAYS_EAGER
    run, pending = _start(
        actor=actor,
        run_id=run_id,
        action="evals.run.resume",
        executor=Executor.CELERY if celery else Executor.INLINE,
        workers=None,
        suite=suite,
    )
    if not celery:
        transaction.on_commit(functools.partial(_continue, run.pk, pending))
    return run


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


def run_rows(run_id: int) -> list[Row]:
    return [
        Row(*values)
        for values in TrialResult.objects.filter(run_id=run_id).values_list(*ROW_FIELDS)
    ]


def eval_run_finalise(*, run_id: int) -> EvalRun:
    """Summarise the stored rows and judge the gate (the chord callback, or the end of an
    in-process run). Idempotent: a re-delivered callback finds the run completed."""
    with transaction.atomic():
        run = EvalRun.objects.select_for_update().get(pk=run_id)
        if run.status in (RunStatus.COMPLETED, RunStatus.ERROR):
            return run
        suite = run_suite(run=run)
        rows = run_rows(run.pk)
        expected = {u.key for u in run_units(suite=suite)}
        stored = {r.key for r in rows}
        missing = expected - stored
        now = timezone.now()
        if missing:
            run.status = RunStatus.FAILED
            run.error_key = "missing"
            run.error_params = {"missing": len(missing), "expected": len(expected)}
            run.error_message = error_english(run.error_key, run.error_params)
            run.finished_at = now
            run.save(
                update_fields=[
                    "status",
                    "error_message",
                    "error_key",
                    "error_params",
                    "finished_at",
                ]
            )
            audit_record(
                actor=None,
                action="evals.run.interrupt",
                target=run,
                after={"missing": len(missing)},
            )
            return run
        report, extra = summarise_rows(rows, suite)
        extra["selftest"] = selftest_evidence(domains=suite.domains, code_version=run.code_version)
        verdict, checks = gate_evaluate(suite, report, extra)
        usage = extra["usage"]
        run.summary = extra
        run.verdict = verdict
        run.verdict_reasons = [c.to_dict() for c in checks]
        run.status = RunStatus.ERROR if verdict == "error" else RunStatus.COMPLETED
        if verdict == "error":
            failing = next(c for c in checks if not c.ok).to_dict()
            run.error_key = "not_judged"
            run.error_params = {"check": {k: failing[k] for k in ("code", "params", "message")}}
            run.error_message = error_english(run.error_key, run.error_params)
        models = extra["models"]
        run.agent_model_resolved = ", ".join(models["agent"])[:500]
        run.user_model_resolved = ", ".join(models["user"])[:500]
        run.finished_at = now
        run.agent_tokens_in = usage["agent"]["tokens_in"]
        run.agent_tokens_out = usage["agent"]["tokens_out"]
        run.agent_cost_micros = usage["agent"]["cost_micros"]
        run.user_tokens_in = usage["user"]["tokens_in"]
        run.user_tokens_out = usage["user"]["tokens_out"]
        run.user_cost_micros = usage["user"]["cost_micros"]
        run.save()
        audit_record(
            actor=None,
            action="evals.run.finish",
            target=run,
            after={
                "status": run.status,
                "verdict": verdict,
                "failed_checks": [c.check for c in checks if not c.ok],
                "trials": len(rows),
            },
        )
    return run


def _kickoff(actor_id: int, run_id: int, celery: bool) -> None:
    actor = Operator.objects.get(pk=actor_id)
    if celery or getattr(settings, "EVALS_UI_INLINE", False):
        eval_run_execute(actor=actor, run_id=run_id)
        return

    def work() -> None:
        try:
            eval_run_execute(actor=actor, run_id=run_id)
        except Exception:  # noqa: S110 - eval_run_interrupt recorded it on the run
            pass
        finally:
            close_old_connections()

    threading.Thread(target=work, name=f"golive-run-{run_id}", daemon=True).start()


def eval_run_start_background(*, actor: Operator, suite: Suite) -> EvalRun:
    """From the UI or the API: create the run and, once that commits, hand it to Celery
    workers when a broker is configured, else to a background thread of this process (the
    embedded default; `EVALS_UI_INLINE = True` runs it in the request instead, for tests)."""
    celery = bool(settings.CELERY_BROKER_URL) and not settings.CELERY_TASK_ALWAYS_EAGER
    run = eval_run_create(
        actor=actor, suite=suite, executor=Executor.CELERY if celery else Executor.INLINE
    )
    transaction.on_commit(functools.partial(_kickoff, actor.pk, run.pk, celery))
    return run
