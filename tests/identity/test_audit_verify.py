"""`audit verify` on an untouched chain, and after tampering with raw SQL (the ORM refuses).

On PostgreSQL the append-only trigger also refuses raw UPDATE/DELETE, so these tests
disable it first (inside the test transaction, which rolls it back) to play the attacker
who owns the table.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.utils import DatabaseError
from django.test.utils import CaptureQueriesContext

from identity.audit import audit_record
from identity.audit_verify import stream_rows, verify_chain
from identity.models import AuditEvent

pytestmark = pytest.mark.django_db

TRIGGER = "identity_auditevent_append_only"


@pytest.fixture
def chain(alice) -> list[AuditEvent]:
    return [audit_record(actor=alice, action=f"test.step{i}", after={"i": i}) for i in range(1, 7)]


@pytest.fixture
def raw_sql() -> Iterator[None]:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE identity_auditevent DISABLE TRIGGER {TRIGGER}")
    yield


def run_sql(sql: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.fixture(params=["one-pass", "in-parts"])
def verify(request) -> Callable[[], str]:
    """The command itself, and the same checks split into parts and stitched (what
    --workers does in processes; in-process here, where the test database lives)."""

    def command() -> str:
        out = StringIO()
        call_command("audit", "verify", "--chunk-size", "2", stdout=out)
        return out.getvalue()

    def in_parts() -> str:
        result = verify_chain(chunk_size=2, workers=3, processes=False)
        if result.problem is not None:
            raise CommandError(
                f"audit chain BROKEN ({result.problem.kind}): {result.problem.message}"
            )
        return f"audit chain OK: {result.checked} events"

    return command if request.param == "one-pass" else in_parts


def test_it_passes_on_an_untouched_chain(chain, verify) -> None:
    assert f"OK: {len(chain)} events" in verify()


def test_the_chain_is_read_by_one_query_in_chunks_of_at_most_chunk_size(chain) -> None:
    # One query read chunk by chunk keeps memory flat; a query per chunk would also let the
    # planner pick a new plan (and re-sort) for each one.
    total = AuditEvent.objects.count()
    with CaptureQueriesContext(connection) as queries:
        sizes = [len(rows) for rows in stream_rows(chunk_size=4)]
    assert sizes == [4] * (total // 4) + ([total % 4] if total % 4 else [])
    assert len(queries.captured_queries) == 1
    with CaptureQueriesContext(connection) as queries:
        window = [row[1] for rows in stream_rows(chunk_size=2, lo=2, hi=5) for row in rows]
    assert window == [3, 4, 5]
    assert len(queries.captured_queries) == 1


@pytest.mark.parametrize("micro", [0, 500000, 120000, 1, 999999])
def test_it_verifies_times_the_database_prints_without_trailing_zeros(
    alice, monkeypatch, micro: int
) -> None:
    # The verifier reads occurred_at as the database's text; PostgreSQL drops the
    # fraction's trailing zeros (.5, or none at all on the second), SQLite keeps six digits.
    at = dt.datetime(2026, 1, 2, 3, 4, 5, micro, tzinfo=dt.UTC)
    monkeypatch.setattr("identity.audit.timezone.now", lambda: at)
    audit_record(actor=alice, action="test.time", after={"at": micro})
    assert verify_chain(chunk_size=2, workers=1, processes=False).problem is None


def test_it_names_the_event_altered_by_a_direct_sql_update(chain, raw_sql, verify) -> None:
    target = chain[3]
    run_sql("UPDATE identity_auditevent SET after = %s WHERE id = %s", ['{"i": 999}', target.pk])
    with pytest.raises(CommandError, match=rf"\(altered\): event #{target.seq} \(id {target.pk},"):
        verify()


def test_it_names_the_event_whose_hash_was_rewritten(chain, raw_sql, verify) -> None:
    target = chain[1]
    run_sql("UPDATE identity_auditevent SET hash = %s WHERE id = %s", ["f" * 64, target.pk])
    with pytest.raises(CommandError, match=rf"\(altered\): event #{target.seq} "):
        verify()


def test_it_names_the_deleted_event(chain, raw_sql, verify) -> None:
    target = chain[2]
    run_sql("DELETE FROM identity_auditevent WHERE id = %s", [target.pk])
    with pytest.raises(CommandError, match=rf"\(deleted\): event #{target.seq} is missing"):
        verify()


def test_it_notices_deletion_at_the_tail(chain, raw_sql, verify) -> None:
    run_sql("DELETE FROM identity_auditevent WHERE id = %s", [chain[-1].pk])
    with pytest.raises(
        CommandError, match=rf"\(deleted\): event #{chain[-1].seq} is missing at the end"
    ):
        verify()


def test_it_names_reordered_events(chain, raw_sql, verify) -> None:
    first, second = chain[2], chain[3]
    parking = 10**12  # seq is unique: move one row aside to swap
    run_sql("UPDATE identity_auditevent SET seq = %s WHERE id = %s", [parking, first.pk])
    run_sql("UPDATE identity_auditevent SET seq = %s WHERE id = %s", [first.seq, second.pk])
    run_sql("UPDATE identity_auditevent SET seq = %s WHERE id = %s", [second.seq, first.pk])
    with pytest.raises(CommandError, match=rf"\(reordered\): event #{first.seq} \(id {second.pk},"):
        verify()


def test_it_catches_a_deleted_event_with_the_rest_renumbered(chain, raw_sql, verify) -> None:
    removed = chain[2]
    run_sql("DELETE FROM identity_auditevent WHERE id = %s", [removed.pk])
    for event in chain[3:]:
        run_sql("UPDATE identity_auditevent SET seq = %s WHERE id = %s", [event.seq - 1, event.pk])
    with pytest.raises(CommandError, match=rf"event #{removed.seq} \(id {chain[3].pk},"):
        verify()


def test_the_orm_refuses_to_update_or_delete_audit_rows(chain) -> None:
    event = chain[0]
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        event.delete()
    with pytest.raises(PermissionError):
        AuditEvent.objects.filter(pk=event.pk).update(action="x")
    with pytest.raises(PermissionError):
        AuditEvent.objects.filter(pk=event.pk).delete()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the trigger exists on PostgreSQL only"
)
def test_postgresql_refuses_raw_update_and_delete_of_audit_rows(chain) -> None:
    for sql in (
        "UPDATE identity_auditevent SET action = 'x' WHERE id = %s",
        "DELETE FROM identity_auditevent WHERE id = %s",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            run_sql(sql, [chain[0].pk])


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="worker processes need a database they can share"
)
@pytest.mark.django_db(transaction=True)
def test_parallel_workers_verify_and_name_the_altered_event(alice) -> None:
    events = [audit_record(actor=alice, action=f"test.step{i}") for i in range(1, 10)]
    assert verify_chain(workers=3).ok
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE identity_auditevent DISABLE TRIGGER {TRIGGER}")
        cursor.execute("UPDATE identity_auditevent SET action = 'x' WHERE id = %s", [events[5].pk])
        cursor.execute(f"ALTER TABLE identity_auditevent ENABLE TRIGGER {TRIGGER}")
    result = verify_chain(workers=3)
    assert result.problem is not None
    assert (result.problem.kind, result.problem.seq) == ("altered", events[5].seq)


def test_it_names_an_event_inserted_far_beyond_the_head(chain, raw_sql, verify) -> None:
    last = chain[-1]
    run_sql(
        "INSERT INTO identity_auditevent (seq, occurred_at, actor_type, actor_label, action, "
        "target_type, target_id, before, after, request_id, prev_hash, hash) "
        "VALUES (%s, %s, 'system', 'system', 'forged', '', '', '{}', '{}', '', %s, %s)",
        [10**12, last.occurred_at, last.hash, "0" * 64],
    )
    with pytest.raises(CommandError, match=r"\(deleted\): event #7(\.\.#999999999999)? is missing"):
        verify()
