"""`golive run`: who runs it, the run created or resumed, executed under a progress bar, its
verdict and exit code; and the self-test that `golive run` runs first when none covers the
code."""

from __future__ import annotations

import functools
import getpass
import json
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.utils.translation import gettext as _

from backoffice.errors import DomainError
from evals import selectors, services
from evals.engine.gate import MIN_SENSITIVITY
from evals.management.cli.output import (
    EXIT_ERROR,
    EXIT_PASS,
    Bar,
    exit_code,
    print_plan,
    print_verdict,
    run_json,
    selftest_short,
)
from evals.models import EvalRun, Executor, RunStatus, TrialOutcome
from identity.models import Operator, OperatorKind

CLI_PRINCIPAL = "golive-cli"


class Abort(Exception):
    """Could not complete: exit 2 with this one-line reason."""


def resolve_operator(username: str | None) -> Operator:
    """`--as USERNAME` (or $GOLIVE_AS) names the accountable operator; without it the run is
    recorded as the `golive-cli` service principal (created on first use). We do not map the
    OS account to an operator: shell logins and backoffice operators are different
    populations, and a silent guess would put the wrong name in the audit trail. The OS user
    and host are recorded in the run's audit event instead."""
    name = username or os.environ.get("GOLIVE_AS", "")
    if name:
        operator = Operator.objects.filter(username=name).first()
        if operator is None:
            raise Abort(f"no operator named {name!r} (--as)")
        if not operator.is_active:
            raise Abort(f"operator {name!r} is deactivated")
        return operator
    operator = Operator.objects.filter(username=CLI_PRINCIPAL).first()
    if operator is None:
        from identity.services import operator_create

        operator, _ = operator_create(
            actor=None,
            username=CLI_PRINCIPAL,
            display_name="Command line (golive)",
            kind=OperatorKind.SERVICE,
        )
    return operator


def origin() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"cli:{user}@{socket.gethostname()}"


def default_executor() -> str:
    broker = bool(settings.CELERY_BROKER_URL) and not settings.CELERY_TASK_ALWAYS_EAGER
    return Executor.CELERY if broker else Executor.INLINE


def _wait_for_celery(run: EvalRun, bar: Bar, already: int, timeout: float) -> EvalRun:
    deadline = time.monotonic() + timeout
    while True:
        run.refresh_from_db()
        rows = selectors.run_trials(run_id=run.pk)
        evaluated = selectors.run_trials_finished(run_id=run.pk)
        passed = rows.filter(outcome=TrialOutcome.PASS).count()
        bar.update(evaluated - already, passed, evaluated, 0)
        if run.status != RunStatus.RUNNING:
            return run
        if time.monotonic() > deadline:
            raise Abort(
                f"run #{run.pk} did not finish within {timeout:.0f} s; resume it with --resume {run.pk}"
            )
        time.sleep(0.25)


@dataclass(frozen=True)
class _Started:
    """A run about to execute: how many of its trials were done before, how many are left, and
    the service that runs them (execute a new run, or resume one)."""

    run: EvalRun
    already: int
    total: int
    start: Callable[..., EvalRun]


def _resume_run(resume: int, overrides: dict[str, Any], out: Callable[[str], None]) -> _Started:
    run = EvalRun.objects.filter(pk=resume).first()
    if run is None:
        raise Abort(f"no run #{resume} to resume")
    already = selectors.run_trials_finished(run_id=run.pk)
    errors = selectors.run_error_counts(run_id=run.pk)
    rerun = (
        f"; re-running {errors['infrastructure']} infrastructure and "
        f"{errors['simulator']} simulator error(s)"
        if any(errors.values())
        else ""
    )
    out(
        f"Resuming run #{run.pk} ({run.suite_name}): {already} of {run.total_units} trials "
        f"done{rerun}."
    )
    # Overrides given with --resume say what the caller means to measure: the service
    # refuses, naming the difference, when the run measured something else.
    try:
        intended = services.suite_override(suite=services.run_suite(run=run), **overrides)
    except services.SuiteError as exc:
        raise Abort(str(exc)) from None
    probe_models(intended)
    start = functools.partial(services.eval_run_resume, suite=intended)
    return _Started(run, already, run.total_units - already, start)


def _create_run(
    suite_name: str,
    overrides: dict[str, Any],
    *,
    operator: Operator,
    executor: str,
    workers: int | None,
    plan_only: bool,
    out: Callable[[str], None],
) -> _Started | None:
    """The new run, created; None when `--plan` only printed what it would run."""
    try:
        suite = services.suite_override(
            suite=services.suite_load(name=suite_name, allow_path=True), **overrides
        )
    except services.SuiteError as exc:
        raise Abort(str(exc)) from None
    probe_models(suite)
    if plan_only:
        print_plan(suite, out)
        return None
    try:
        run = services.eval_run_create(
            actor=operator, suite=suite, executor=executor, workers=workers, origin=origin()
        )
    except DomainError as exc:
        raise Abort(exc.message) from None
    out(
        f"Run #{run.pk}: suite {run.suite_name} ({run.suite_hash[:12]}), {run.total_units} "
        f"trials, agent {run.agent_model} vs user {run.user_model}, as {operator.username}"
    )
    return _Started(run, 0, run.total_units, services.eval_run_execute)


def _execute(
    started: _Started,
    *,
    operator: Operator,
    executor: str,
    workers: int | None,
    timeout: float,
    progress: bool,
    err: IO[str],
) -> EvalRun:
    """Run the pending trials under the progress bar; with Celery, wait for the workers."""
    run = started.run
    with Bar(started.total, enabled=progress, stream=err) as bar:
        try:
            run = started.start(
                actor=operator,
                run_id=run.pk,
                executor=executor,
                workers=workers,
                on_progress=lambda p: bar.update(p.done, p.passed, p.evaluated, p.cost_micros),
            )
        except DomainError as exc:
            raise Abort(exc.message) from None
        except KeyboardInterrupt:
            raise Abort(f"interrupted; resume with: golive run --resume {run.pk}") from None
        if run.executor == Executor.CELERY:
            run = _wait_for_celery(run, bar, started.already, timeout)
    run.refresh_from_db()
    return run


def _finish(run: EvalRun, json_path: str | None, base_url: str, out: Callable[[str], None]) -> int:
    """Print the verdict, write `--json`, and give the exit code (Abort when it is 2)."""
    print_verdict(run, out, base_url)
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(run_json(run, base_url), indent=2, default=str))
    code = exit_code(run)
    if code == EXIT_ERROR:
        raise Abort(run.error_message or f"run #{run.pk} is {run.get_status_display().lower()}")
    return code


def golive_run(
    *,
    suite_name: str,
    agent: str | None,
    user: str | None,
    trials: int | None,
    domains: Sequence[str] | None,
    personas: Sequence[str] | None,
    workers: int | None,
    resume: int | None,
    json_path: str | None,
    plan_only: bool,
    as_user: str | None,
    executor: str | None,
    base_url: str,
    timeout: float,
    progress: bool,
    out: Callable[[str], None],
    err: IO[str],
) -> int:
    operator = resolve_operator(as_user)
    executor = executor or default_executor()
    overrides: dict[str, Any] = {
        "agent": agent,
        "user": user,
        "trials": trials,
        "domains": domains,
        "personas": personas,
    }
    if resume is not None:
        started = _resume_run(resume, overrides, out)
    else:
        created = _create_run(
            suite_name,
            overrides,
            operator=operator,
            executor=executor,
            workers=workers,
            plan_only=plan_only,
            out=out,
        )
        if created is None:
            return EXIT_PASS
        started = created
    ensure_selftest(operator, services.run_suite(run=started.run).domains, out)
    run = _execute(
        started,
        operator=operator,
        executor=executor,
        workers=workers,
        timeout=timeout,
        progress=progress,
        err=err,
    )
    return _finish(run, json_path, base_url, out)


def probe_models(suite: services.Suite) -> None:
    """Exit 2 with one line before anything is created when the agent or the user simulator
    does not exist or its provider refuses it (one call per LLM role; see evals.services.probe)."""
    problems = services.suite_models_probe(suite=suite)
    if problems:
        raise Abort("; ".join(problems.values()))


def ensure_selftest(operator: Operator, domains: Sequence[str], out: Callable[[str], None]) -> None:
    """Run the oracle's self-test first on the domains no stored one covers at this code
    version: the gate requires it, it is offline and takes seconds, and it is needed once
    per code version, so a fresh checkout's first `golive run` (`make run`) is judged whole
    instead of failing for want of it."""
    version = services.code_version()
    missing = services.selftest_missing(domains=domains, code_version=version)
    if not missing:
        return
    out(
        _("No self-test of the oracle at code %(version)s covers %(domains)s: running it first.")
        % {"version": version, "domains": ", ".join(missing)}
    )
    try:
        selftest = services.eval_selftest_run(actor=operator, domains=missing)
    except DomainError as exc:
        raise Abort(exc.message) from None
    short = selftest_short(selftest)
    out(
        _("Self-test #%(id)s (%(seconds).1f s): %(verdict)s; `golive selftest` prints it.")
        % {
            "id": selftest.pk,
            "seconds": selftest.seconds,
            "verdict": _("faults let through: %s") % "; ".join(short)
            if short
            else _("every applicable fault caught on at least %.0f%% of its tasks")
            % (MIN_SENSITIVITY * 100),
        }
    )
