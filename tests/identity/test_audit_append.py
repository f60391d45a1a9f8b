"""How audit_record links events: on PostgreSQL the head is locked, the event hashed and
inserted in one statement; elsewhere in three. Either way `audit verify` must accept the
chain, and concurrent writers must get gap-free, distinct sequence numbers."""

from __future__ import annotations

import pytest
from django.db import transaction

from identity import audit
from identity.audit import audit_record, compute_hash
from identity.audit_verify import verify_chain
from identity.models import AuditChainHead, AuditEvent
from tests.payments_sandbox.concurrency import require_real_connections, run_concurrently


@pytest.mark.django_db
def test_each_event_links_onto_the_one_before_with_the_hash_verify_computes(alice) -> None:
    events = [
        audit_record(actor=alice, action="test.link", after={"i": i, "text": 'é\u2028"x'})
        for i in range(3)
    ]
    stored = list(AuditEvent.objects.order_by("seq"))
    assert [e.seq for e in stored][-3:] == [e.seq for e in events]
    for event, row in zip(events, stored[-3:], strict=True):
        assert (row.pk, row.prev_hash, row.hash) == (event.pk, event.prev_hash, event.hash)
        assert row.hash == compute_hash(row.prev_hash, row)
    assert events[1].prev_hash == events[0].hash and events[2].prev_hash == events[1].hash
    head = AuditChainHead.objects.get(pk=1)
    assert (head.seq, head.hash) == (events[-1].seq, events[-1].hash)
    assert verify_chain(chunk_size=2, workers=1, processes=False).problem is None


@pytest.mark.django_db
def test_content_that_contains_the_sequence_marker_is_still_chained_correctly(alice) -> None:
    # The one-statement path splices the number in at a marker; content that happens to hold
    # the marker text must not confuse it (it takes the portable path instead).
    tricky = {"seq": audit._SEQ_MARKER, "note": audit._SEQ_MARKER_BYTES.decode()}
    first = audit_record(actor=alice, action="test.marker", after=tricky)
    second = audit_record(actor=alice, action="test.after-marker", after={"ok": True})
    assert second.prev_hash == first.hash
    assert first.hash == compute_hash(first.prev_hash, AuditEvent.objects.get(pk=first.pk))
    assert verify_chain(chunk_size=2, workers=1, processes=False).problem is None


@pytest.mark.django_db
def test_the_first_event_of_a_database_without_a_head_row_starts_the_chain() -> None:
    assert not AuditEvent.objects.exists()
    AuditChainHead.objects.all().delete()  # a fresh or flushed database
    event = audit_record(actor=None, action="test.genesis")
    assert (event.seq, event.prev_hash) == (1, audit.GENESIS_HASH)
    assert AuditChainHead.objects.get(pk=1).hash == event.hash


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_get_gap_free_sequence_numbers_and_a_valid_chain(alice) -> None:
    require_real_connections()

    def work(i: int) -> list[int]:
        seqs = []
        for j in range(5):
            with transaction.atomic():
                seqs.append(
                    audit_record(actor=None, action="test.race", after={"i": i, "j": j}).seq
                )
        return seqs

    results = run_concurrently(8, work)
    assert not [r for r in results if isinstance(r, BaseException)], results
    seqs = sorted(s for r in results for s in r)
    assert seqs == list(range(seqs[0], seqs[0] + 40))
    assert verify_chain(chunk_size=7, workers=1, processes=False).problem is None
