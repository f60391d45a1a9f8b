"""The Idempotency-Key records' storage: claim, hold, take over, complete, release, purge.

`backoffice.idempotency` is the HTTP side (the header, the decorator, the answers); this
module is every statement it sends about a record, and what each one guarantees. The
protocol is described there.

Three statements run on every write request of every app (claim, hold, complete) and stay
hand-written; why, with the figures, is in docs/performance.md ("Idempotency records"). All
names in them come from the model.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.utils import timezone

from backoffice.models import IdempotencyRecord, IdempotencyState
from identity.audit import audit_record

# An in-flight record older than this belongs to a request that died (its transaction rolled
# back, so it changed nothing); a retry may take it over. Far above any sane request time so
# a slow but live request is never raced.
IN_FLIGHT_STALE_SECONDS = 300

# On PostgreSQL a live request holds its record's row lock for as long as its transaction
# runs (hold), so an in-flight record nobody holds belongs to a request that died (its
# connection went with a database restart, or its process was killed). The grace covers the
# moment between the claim's commit and the lock; past it a retry takes the record over.
IN_FLIGHT_LOCK_GRACE_SECONDS = 2

_IN_FLIGHT = IdempotencyState.IN_FLIGHT.value
_CLAIM_FIELDS = (
    "principal",
    "scope",
    "key",
    "fingerprint",
    "state",
    "owner",
    "created_at",
    "expires_at",
)
_FIELDS = {field.name: field for field in IdempotencyRecord._meta.concrete_fields}


class Superseded(Exception):
    """The record was taken over by another request; this one must not commit."""


@functools.cache
def _statements(alias: str) -> dict[str, str]:
    """The hand-written statements for one database, every identifier from the model."""
    quote = connections[alias].ops.quote_name
    table = quote(IdempotencyRecord._meta.db_table)
    column = {name: quote(str(field.column)) for name, field in _FIELDS.items()}
    key = ", ".join(column[name] for name in ("principal", "scope", "key"))
    in_flight_mine = f"{column['id']} = %s AND {column['owner']} = %s AND {column['state']} = %s"
    return {
        # One statement, one round trip: outside a transaction it commits on its own, so the
        # claim is visible to every concurrent duplicate before the view runs. A duplicate
        # does not raise (no savepoint, no BEGIN/COMMIT pair); it gets no row back and reads
        # the existing record. On PostgreSQL an insert that meets a conflicting row still
        # being inserted waits for that transaction, so two claims can never both return a
        # row.
        "claim": (
            f"INSERT INTO {table} ({', '.join(column[name] for name in _CLAIM_FIELDS)}) "  # noqa: S608
            f"VALUES ({', '.join(['%s'] * len(_CLAIM_FIELDS))}) "
            f"ON CONFLICT ({key}) DO NOTHING RETURNING {column['id']}"
        ),
        # Taken by the owner as the first statement of the view's transaction, released by
        # its commit or rollback, or by the server when the connection dies.
        "hold": f"SELECT 1 FROM {table} WHERE {in_flight_mine} FOR UPDATE",  # noqa: S608
        # The owner and state conditions keep a superseded request from completing.
        "complete": (
            f"UPDATE {table} SET {column['state']} = %s, {column['response_status']} = %s, "  # noqa: S608
            f"{column['response_body']} = %s WHERE {in_flight_mine}"
        ),
    }


def _may_commit_claim_asynchronously(connection: Any) -> bool:
    """PostgreSQL, outside any transaction (the statement is its own), with client-side
    parameter binding (psycopg's default in Django), which allows two statements at once."""
    return (
        connection.vendor == "postgresql"
        and connection.get_autocommit()
        and not connection.settings_dict.get("OPTIONS", {}).get("server_side_binding")
    )


def claim(
    *, principal: str, scope: str, key: str, fingerprint: str, owner: str, now: dt.datetime
) -> IdempotencyRecord | None:
    """The new in-flight record, committed, or None when (principal, scope, key) exists.

    Hand-written where the database can return the new id from an insert that skips a
    conflict: the ORM cannot (bulk_create(ignore_conflicts=True) leaves the pk unset), and
    its portable form costs a savepoint and a raised IntegrityError per duplicate."""
    record = IdempotencyRecord(
        principal=principal,
        scope=scope,
        key=key,
        fingerprint=fingerprint,
        state=_IN_FLIGHT,
        owner=owner,
        created_at=now,
        expires_at=now + dt.timedelta(seconds=settings.IDEMPOTENCY_KEY_TTL_SECONDS),
    )
    alias = router.db_for_write(IdempotencyRecord)
    connection = connections[alias]
    if not connection.features.can_return_columns_from_insert:
        # Other backends: the portable form (savepoint, INSERT, a duplicate raises).
        try:
            with transaction.atomic(using=alias):
                record.save(using=alias, force_insert=True)
        except IntegrityError:
            return None
        return record
    sql = _statements(alias)["claim"]
    params = [
        _FIELDS[name].get_db_prep_save(getattr(record, name), connection) for name in _CLAIM_FIELDS
    ]
    with connection.cursor() as cursor:
        if _may_commit_claim_asynchronously(connection):
            # The claim needs to be visible at once, not durable at once: an asynchronous
            # commit is visible to every other session immediately, and the WAL is flushed in
            # order, so the view's (synchronous) commit makes the claim durable with it. A
            # crash before that loses only a claim whose request changed nothing durable; the
            # retry then runs afresh. Saves one WAL flush (fdatasync) per write request.
            # Both statements go in one round trip, one implicit transaction.
            cursor.execute(f"SET LOCAL synchronous_commit TO OFF; {sql}", params)
            cursor.nextset()
        else:
            cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    record.pk = row[0]
    record._state.adding = False
    record._state.db = alias
    return record


def existing(*, principal: str, scope: str, key: str) -> IdempotencyRecord | None:
    return IdempotencyRecord.objects.filter(principal=principal, scope=scope, key=key).first()


def _locks_records(alias: str) -> bool:
    """Whether a live request's row lock on its record tells a retry that it is alive."""
    return connections[alias].vendor == "postgresql"


def hold(record: IdempotencyRecord) -> None:
    """Lock our record for the view's transaction (PostgreSQL). No row: a retry took the
    record over while this request had not started yet, so this one must not run.
    Hand-written: it runs on every write request (docs/performance.md)."""
    alias = router.db_for_write(IdempotencyRecord)
    if not _locks_records(alias):
        return
    with connections[alias].cursor() as cursor:
        cursor.execute(_statements(alias)["hold"], [record.pk, record.owner, _IN_FLIGHT])
        held = cursor.fetchone() is not None
    if not held:
        raise Superseded


def take_over_if_unheld(record: IdempotencyRecord, *, owner: str, now: dt.datetime) -> bool:
    """Take over an in-flight record whose request died with its connection: no transaction
    holds its row lock (PostgreSQL). In a transaction of its own: a record a live request
    holds is skipped, never waited for, and the one taken stays locked from the check until
    the new owner is written."""
    alias = router.db_for_write(IdempotencyRecord)
    if not _locks_records(alias):
        return False
    if (now - record.created_at).total_seconds() <= IN_FLIGHT_LOCK_GRACE_SECONDS:
        return False
    records = IdempotencyRecord.objects.using(alias)
    with transaction.atomic(using=alias):
        unheld = (
            records.select_for_update(skip_locked=True)
            .filter(pk=record.pk, owner=record.owner, state=_IN_FLIGHT)
            .values_list("pk", flat=True)
            .first()
        )
        if unheld is None:
            return False
        records.filter(pk=unheld).update(owner=owner, created_at=now)
    record.owner, record.created_at = owner, now
    return True


def take_over(record: IdempotencyRecord, *, owner: str, now: dt.datetime) -> bool:
    """Make `owner` the in-flight record's owner (a stale record: its request died); False
    when another retry took it first."""
    taken = IdempotencyRecord.objects.filter(
        pk=record.pk, owner=record.owner, state=_IN_FLIGHT
    ).update(owner=owner, created_at=now)
    if taken:
        record.owner, record.created_at = owner, now
    return bool(taken)


def drop_expired(record: IdempotencyRecord) -> None:
    IdempotencyRecord.objects.filter(pk=record.pk, owner=record.owner).delete()


def complete(record: IdempotencyRecord, *, status: int, body: Any) -> None:
    """Mark our record completed with the response, in the view's transaction.
    Hand-written: it runs on every write request (docs/performance.md)."""
    alias = router.db_for_write(IdempotencyRecord)
    connection = connections[alias]
    stored_body = _FIELDS["response_body"].get_db_prep_save(body, connection)
    with connection.cursor() as cursor:
        cursor.execute(
            _statements(alias)["complete"],
            [
                IdempotencyState.COMPLETED.value,
                status,
                stored_body,
                record.pk,
                record.owner,
                _IN_FLIGHT,
            ],
        )
        updated = cursor.rowcount
    if not updated:
        raise Superseded


def release(record: IdempotencyRecord) -> None:
    """Drop our in-flight record so the same key may be retried."""
    IdempotencyRecord.objects.filter(pk=record.pk, owner=record.owner, state=_IN_FLIGHT).delete()


@transaction.atomic
def idempotency_purge_expired(*, now: dt.datetime | None = None) -> int:
    """Delete records past their expiry; returns how many. Run by Celery beat."""
    moment = now or timezone.now()
    deleted, _ = IdempotencyRecord.objects.filter(expires_at__lte=moment).delete()
    audit_record(
        actor=None,
        action="idempotency.purge",
        target_type="backoffice.idempotencyrecord",
        after={"deleted": deleted, "expired_before": moment},
    )
    return deleted
