"""Importing a JSON-lines run file written by `python -m evals.engine run` as a run of the
backoffice, so its trials open in the trial viewer like any other run's.

The whole file is read and checked before anything is written, and everything is written
in one transaction: a malformed file is refused with the line and the reason, and leaves
nothing behind. As the engine itself reads such a file, the last line of a unit wins (a
resumed run appends a unit's re-run after its error). An imported run is summarised (pass^k,
heatmap, failure classes, cost) but not judged: no suite's gate chose its thresholds.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import ValidationFailed
from evals import access
from evals.engine.runner import TrialRecord
from evals.models import EvalRun, Executor, RunStatus, TrialResult
from evals.services.gate import summarise_rows
from evals.services.run_finalise import apply_models_and_usage, run_rows
from evals.services.run_plan import code_version
from evals.services.store import trial_documents_store, trial_row
from evals.services.suites import SuiteError, suite_from_mapping
from identity.audit import audit_record
from identity.models import Operator

# A run file larger than this is refused before it is read (the CLI has no such limit).
MAX_BYTES = 512 * 1024 * 1024
_NAME_MAX = 80


class ImportRefused(ValidationFailed):
    """The file cannot be imported; the message names the line and what is wrong."""


def _refuse(message: str) -> ImportRefused:
    return ImportRefused(message)


def _records(lines: Iterable[bytes]) -> tuple[list[TrialRecord], int]:
    """Every unit's last record, in file order of first appearance, and the line count."""
    by_key: dict[str, TrialRecord] = {}
    number = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise _refuse(
                gettext("line %(n)d is not JSON (%(why)s); nothing was imported.")
                % {"n": number, "why": str(exc)[:120]}
            ) from None
        if not isinstance(data, dict):
            raise _refuse(
                gettext("line %(n)d is not a trial record (a JSON object); nothing was imported.")
                % {"n": number}
            )
        try:
            record = TrialRecord.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise _refuse(
                gettext(
                    "line %(n)d is not a trial record of `python -m evals.engine run` "
                    "(%(why)s); nothing was imported."
                )
                % {"n": number, "why": f"{type(exc).__name__}: {exc}"[:160]}
            ) from None
        if record.trial < 0 or not (record.domain and record.task_id and record.persona):
            raise _refuse(
                gettext("line %(n)d has no domain, task, persona or trial; nothing was imported.")
                % {"n": number}
            )
        by_key[record.key] = record
    if not by_key:
        raise _refuse(gettext("The file holds no trial record; nothing was imported."))
    return list(by_key.values()), number


def _check_one_run(records: list[TrialRecord]) -> None:
    """One fingerprint per domain: two runs' trials appended to one file would be
    measured as one."""
    seen: dict[str, set[str]] = {}
    for r in records:
        seen.setdefault(r.domain, set()).add(r.fingerprint)
    mixed = sorted(d for d, prints in seen.items() if len(prints) > 1)
    if mixed:
        raise _refuse(
            gettext(
                "The file mixes trials of different runs in %(domains)s (more than one "
                "fingerprint); nothing was imported."
            )
            % {"domains": ", ".join(mixed)}
        )


def _most_common(values: Iterable[str], default: str) -> str:
    counted = Counter(v for v in values if v)
    return counted.most_common(1)[0][0] if counted else default


def eval_run_import(*, actor: Operator, name: str, lines: Iterable[bytes]) -> EvalRun:
    """A completed, summarised, unjudged run holding every unit of the file."""
    access.ensure_start(actor)
    records, line_count = _records(lines)
    _check_one_run(records)
    domains = sorted({r.domain for r in records})
    personas = sorted({r.persona for r in records})
    per_cell = Counter((r.domain, r.task_id, r.persona) for r in records)
    trials = max(per_cell.values())
    if trials > 64:
        raise _refuse(
            gettext("A task has %(n)d trials; at most 64 can be imported.") % {"n": trials}
        )
    agent = _most_common((str(r.models.get("agent", "")) for r in records), "imported")
    user = _most_common((str(r.models.get("user", "")) for r in records), "imported")
    label = (name.rsplit("/", 1)[-1] or "run.jsonl")[:_NAME_MAX]
    try:
        suite = suite_from_mapping(
            {
                "name": f"import:{label}"[:100],
                "description": gettext("Imported from %(file)s") % {"file": label},
                "trials": trials,
                "domains": [{"name": d} for d in domains],
                "personas": personas,
                "agent": {"model": agent[:200]},
                "user": {"model": user[:200]},
            },
            source=label,
        )
    except SuiteError as exc:
        raise _refuse(
            gettext("%(why)s; nothing was imported.") % {"why": str(exc).rstrip(".")}
        ) from None
    seeds = Counter(r.seed for r in records)
    now = timezone.now()
    with transaction.atomic():
        run = EvalRun.objects.create(
            suite_name=suite.name,
            suite_snapshot=suite.snapshot(),
            suite_hash=suite.digest(),
            code_version=code_version(),
            agent_model=agent[:200],
            user_model=user[:200],
            seed=seeds.most_common(1)[0][0] if seeds else 0,
            fingerprint_fields={
                d: {"fingerprint": next(r.fingerprint for r in records if r.domain == d)}
                for d in domains
            },
            trials_per_task=trials,
            total_units=len(records),
            executor=Executor.INLINE,
            workers=1,
            status=RunStatus.COMPLETED,
            started_by=actor,
            started_at=now,
            finished_at=now,
        )
        stored = TrialResult.objects.bulk_create(
            [trial_row(run.pk, r) for r in records], batch_size=500
        )
        trial_documents_store(trials=stored)
        _, extra = summarise_rows(run_rows(run_id=run.pk), suite)
        extra["imported"] = {"file": label, "lines": line_count, "trials": len(records)}
        run.summary = extra
        apply_models_and_usage(run, extra)
        run.save()
        audit_record(
            actor=actor,
            action="evals.run.import",
            target=run,
            after=_audit(label, line_count, len(records), domains),
        )
    return run


def _audit(label: str, lines: int, trials: int, domains: list[str]) -> dict[str, Any]:
    return {"file": label, "lines": lines, "trials": trials, "domains": domains}
