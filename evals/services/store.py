"""Storing trial rows: one statement per finished trial, idempotent on the unit's key.

A unit's row is written with `INSERT … ON CONFLICT (run, domain, task, persona, trial) DO
UPDATE … WHERE the stored row is an infrastructure or simulator error`. So, atomically and in
one round trip:

- a new unit is inserted;
- a unit whose stored row is an error (resume re-ran it) is replaced in place — same id, same
  ticket link, no gap and no duplicate;
- a unit whose stored row is a pass or a fail is left alone (a re-delivered Celery task, a
  resumed run racing a slow worker): the good row wins, whichever copy finished first.

Trial rows are the run's data, not operator actions: no audit event each (a run has
thousands); the run's lifecycle is what the audit trail records.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction

from evals.engine.runner import TrialRecord
from evals.models import ERROR_OUTCOMES, TrialOutcome, TrialResult
from evals.search import documents_write, trial_document

# The unit's key (the model's unique constraint) and, kept from the row being replaced,
# its identity and the ticket an operator may have opened.
_KEY_FIELDS = ("run", "domain", "task_id", "persona", "trial")
_KEEP_FIELDS = frozenset({"id", "ticket", *_KEY_FIELDS})


def micros(usage: Any, role: str) -> int:
    """A role's cost in micro-dollars from a trajectory's usage: the engine's LLM adapters
    write `<role>.cost_usd`; `<role>.cost` is what older records and custom participants
    (a `usage()` of their own) may hold."""
    value = usage.get(f"{role}.cost_usd")
    if value is None:
        value = usage.get(f"{role}.cost", 0.0)
    return round(float(value or 0.0) * 1_000_000)


def outcome_of(record: TrialRecord) -> TrialOutcome:
    if record.simulator_error:
        return TrialOutcome.SIMULATOR
    if record.infrastructure:
        return TrialOutcome.INFRASTRUCTURE
    if record.not_judged:
        return TrialOutcome.NOT_JUDGED
    return TrialOutcome.PASS if record.reward >= 1.0 else TrialOutcome.FAIL


def trial_row(run_id: int, record: TrialRecord) -> TrialResult:
    """The (unsaved) row for `record`."""
    usage = record.usage or {}
    outcome = outcome_of(record)
    models = record.models or {}
    return TrialResult(
        run_id=run_id,
        domain=record.domain,
        task_id=record.task_id,
        persona=record.persona,
        trial=record.trial,
        seed=record.seed,
        outcome=outcome,
        reward=record.reward,
        components=dict(record.components),
        failure_class=record.failure if outcome != TrialOutcome.PASS else "",
        termination=record.termination,
        trajectory=dict(record.trajectory) if record.trajectory is not None else None,
        diff=list(record.diff),
        notes=list(record.notes),
        error=record.error,
        policy_violations=record.policy_violations,
        tool_calls=record.tool_calls,
        agent_turns=record.agent_turns,
        questions=record.questions,
        agent_tokens_in=int(usage.get("agent.tokens_in", 0) or 0),
        agent_tokens_out=int(usage.get("agent.tokens_out", 0) or 0),
        agent_cost_micros=micros(usage, "agent"),
        user_tokens_in=int(usage.get("user.tokens_in", 0) or 0),
        user_tokens_out=int(usage.get("user.tokens_out", 0) or 0),
        user_cost_micros=micros(usage, "user"),
        seconds=record.seconds,
        # Only an infrastructure error: a simulator error is its own outcome.
        infrastructure=outcome == TrialOutcome.INFRASTRUCTURE,
        agent_model=str(models.get("agent", ""))[:200],
        user_model=str(models.get("user", ""))[:200],
        fingerprint=record.fingerprint,
        published_reward=record.published_reward,
        published_criteria=dict(record.published_criteria),
    )


@functools.cache
def _upsert_sql(vendor: str) -> tuple[str, list[Any]]:
    """Built once per backend from the model's fields: identifiers only, every value a
    parameter."""
    meta = TrialResult._meta
    q = connection.ops.quote_name
    table = q(meta.db_table)
    fields = [f for f in meta.concrete_fields if not f.primary_key and f.column]
    columns = [str(f.column) for f in fields]
    column_of = {f.name: str(f.column) for f in meta.concrete_fields}
    keep = {column_of[name] for name in _KEEP_FIELDS}
    key = [column_of[name] for name in _KEY_FIELDS]
    outcome = q(column_of["outcome"])
    updates = ", ".join(f"{q(c)} = EXCLUDED.{q(c)}" for c in columns if c not in keep)
    errors = ", ".join(f"'{o.value}'" for o in ERROR_OUTCOMES)
    # Identifiers from the model's metadata; every value is a parameter.
    sql = (
        f"INSERT INTO {table} ({', '.join(q(c) for c in columns)}) "  # noqa: S608
        f"VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT ({', '.join(q(c) for c in key)}) DO UPDATE SET {updates} "
        f"WHERE {table}.{outcome} IN ({errors}) "
        f"RETURNING {q(str(meta.pk.column))}"
    )
    if vendor == "postgresql":
        # The search document (evals.search) in the same statement: written exactly when the
        # row is, and replaced with it.
        sql = (
            f"WITH stored AS ({sql}) "  # noqa: S608
            "INSERT INTO evals_trialsearch (trial_id, document) "
            f"SELECT {q(str(meta.pk.column))}, to_tsvector('evals_search', %s) FROM stored "
            "ON CONFLICT (trial_id) DO UPDATE SET document = EXCLUDED.document "
            "RETURNING trial_id"
        )
    return sql, fields


def trial_store(*, run_id: int, record: TrialRecord) -> bool:
    """Store one finished trial; False when a good row of the unit was already stored.

    Hand-written SQL, kept: the ORM cannot say this upsert's condition
    (`bulk_create(update_conflicts=True)` has no "only replace an error row"), so this is the
    one raw statement of the app (SQLite ≥ 3.35 and PostgreSQL both speak it). The row's
    search document (evals.search) is written with it: on PostgreSQL by the same statement (a
    CTE), on SQLite in the same transaction. On PostgreSQL the statement runs in autocommit,
    so it is its own transaction: no BEGIN/COMMIT round trips; it is sent with
    `SET LOCAL synchronous_commit = off` in the same message (a multi-statement simple query
    is one implicit transaction), so it does not wait for the WAL flush
    (docs/performance.md); a database crash can then lose only the last few rows — finalise
    reports them missing and a resume re-runs exactly them.
    """
    row = trial_row(run_id, record)
    sql, fields = _upsert_sql(connection.vendor)
    params = [f.get_db_prep_save(f.pre_save(row, add=True), connection) for f in fields]
    document = trial_document(row.trajectory)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            if not connection.in_atomic_block:
                cursor.execute("SET LOCAL synchronous_commit = off; " + sql, [*params, document])
                cursor.nextset()
            else:
                cursor.execute(sql, [*params, document])
            return cursor.fetchone() is not None
    # SQLite: the row and its document in one transaction (one commit, as before).
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        stored = cursor.fetchone()
        if stored is not None:
            documents_write(cursor, connection.vendor, [(stored[0], document)])
        return stored is not None


def trial_documents_store(*, trials: Iterable[TrialResult], batch: int = 500) -> None:
    """The search documents of trials stored in bulk (an imported run): trial_store writes
    its own."""
    trials = list(trials)
    with connection.cursor() as cursor:
        for start in range(0, len(trials), batch):
            documents_write(
                cursor,
                connection.vendor,
                [(t.pk, trial_document(t.trajectory)) for t in trials[start : start + batch]],
            )


def finished_keys(*, run_id: int) -> set[str]:
    """Keys of the units that need no re-run: their stored row is a pass or a fail.
    Infrastructure and simulator errors are re-run by resume (and replaced by trial_store)."""
    return {
        f"{d}/{t}/{p}/{n}"
        for d, t, p, n in TrialResult.objects.filter(run_id=run_id)
        .exclude(outcome__in=ERROR_OUTCOMES)
        .values_list("domain", "task_id", "persona", "trial")
    }


def unit_finished(run_id: int, domain: str, task_id: str, persona: str, trial: int) -> bool:
    """A good row of this unit is stored (one index lookup on the unique key)."""
    return (
        TrialResult.objects.filter(
            run_id=run_id, domain=domain, task_id=task_id, persona=persona, trial=trial
        )
        .exclude(outcome__in=ERROR_OUTCOMES)
        .exists()
    )
