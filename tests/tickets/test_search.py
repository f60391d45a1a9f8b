"""Full-text search over one document per ticket (its subject and every message), on an
index on both backends (FTS5 on SQLite, GIN tsvector on PostgreSQL): what it finds, what it
hides, and that the documents follow new messages, edits, merges and deletes."""

from __future__ import annotations

from django.db import connection

from tests.tickets.conftest import join
from tickets import selectors, services
from tickets.models import Message, Ticket


def found(operator, term: str, view: str = "all") -> list[int]:
    return [
        t.pk for t in selectors.ticket_list_for_inbox(operator=operator, view=view, search=term)
    ]


def version(ticket: Ticket) -> int:
    return Ticket.objects.values_list("version", flat=True).get(pk=ticket.pk)


def test_the_search_uses_an_index_on_this_backend(sam, queue, make_ticket) -> None:
    make_ticket(queue, subject="Parcel lost")
    sql = str(selectors.ticket_list_for_inbox(operator=sam, view="all", search="parcel").query)
    if connection.vendor == "sqlite":
        assert "tickets_ticket_search MATCH" in sql
    else:
        assert "tickets_ticketsearch" in sql and "websearch_to_tsquery" in sql


def test_it_finds_subjects_and_every_kind_of_message_by_stemmed_words(
    sam, alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    by_subject = make_ticket(queue, subject="Refunds for damaged parcels")
    by_customer = make_ticket(
        queue, subject="Question", customer_message="My vouchers were rejected twice"
    )
    services.ticket_note_add(
        actor=alice,
        ticket_id=by_customer.pk,
        body="Courier confirms the delivery window",
        expected_version=version(by_customer),
    )
    assert found(sam, "refund") == [by_subject.pk]
    assert found(sam, "damaged parcel") == [by_subject.pk]
    assert found(sam, "voucher rejected") == [by_customer.pk]
    assert found(sam, "courier") == [by_customer.pk]
    assert found(sam, "refund courier") == []  # every word must match, in one ticket
    assert found(sam, "zeppelin") == []


def test_operator_syntax_in_the_search_box_is_read_as_words(sam, queue, make_ticket) -> None:
    ticket = make_ticket(queue, subject="Card declined at checkout")
    assert found(sam, 'card" (declined*') == [ticket.pk]
    assert found(sam, "NEAR(card declined)") == []  # "near" is just a word here
    assert found(sam, '"') == []


def test_search_only_returns_tickets_the_operator_may_see(
    alice, sam, queue, other_queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    mine = make_ticket(queue, subject="Chargeback on order 77")
    hidden = make_ticket(other_queue, subject="Chargeback on order 78")
    assert sorted(found(sam, "chargeback")) == sorted([mine.pk, hidden.pk])
    assert found(alice, "chargeback", view="queues") == [mine.pk]
    assert found(alice, "chargeback", view="unassigned") == []
    assert hidden.pk not in found(alice, "chargeback", view="breaching")


def test_the_index_follows_note_edits(sam, alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=True)
    ticket = make_ticket(queue, subject="Login trouble")
    note = services.ticket_note_add(
        actor=alice,
        ticket_id=ticket.pk,
        body="Suspect the authenticator",
        expected_version=version(ticket),
    )
    assert found(sam, "authenticator") == [ticket.pk]
    services.ticket_note_edit(
        actor=alice,
        ticket_id=ticket.pk,
        note_id=note.pk,
        body="Password manager issue",
        expected_version=version(ticket),
    )
    assert found(sam, "authenticator") == []
    assert found(sam, "password manager") == [ticket.pk]
    Message.objects.filter(pk=note.pk).delete()
    assert found(sam, "password") == []


def test_after_a_merge_the_moved_messages_are_found_on_the_target(sam, queue, make_ticket) -> None:
    source = make_ticket(
        queue, subject="Broken hinge", customer_message="The wardrobe hinge snapped"
    )
    target = make_ticket(queue, subject="Wardrobe delivery")
    services.ticket_merge(
        actor=sam,
        source_id=source.pk,
        target_id=target.pk,
        expected_source_version=version(source),
        expected_target_version=version(target),
    )
    # The message moved: its words lead to the target; the source keeps its own subject.
    assert found(sam, "snapped") == [target.pk]
    assert found(sam, "hinge") == sorted([source.pk, target.pk], reverse=True)


def test_the_words_of_a_search_may_come_from_different_parts_of_a_ticket(
    sam, alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    ticket = make_ticket(
        queue, subject="Wardrobe delivery", customer_message="It arrived scratched"
    )
    services.ticket_note_add(
        actor=alice,
        ticket_id=ticket.pk,
        body="Courier photo attached",
        expected_version=version(ticket),
    )
    other = make_ticket(queue, subject="Wardrobe hinge")
    assert found(sam, "wardrobe scratched courier") == [ticket.pk]
    assert sorted(found(sam, "wardrobe")) == sorted([ticket.pk, other.pk])


def test_a_transcript_inserted_at_once_is_searchable_and_a_deleted_ticket_is_gone(
    sam, queue, make_ticket
) -> None:
    ticket = make_ticket(queue, subject="Escalated chat")
    Message.objects.bulk_create(
        [
            Message(
                ticket=ticket,
                kind="customer",
                author_label="C",
                body=f"turn {i} {word}",
                created_at=ticket.created_at,
            )
            for i, word in enumerate(["paddle", "kayak", "lifejacket"])
        ]
    )
    assert found(sam, "kayak lifejacket paddle") == [ticket.pk]
    Ticket.objects.filter(pk=ticket.pk).delete()
    assert found(sam, "kayak") == []
    again = make_ticket(queue, subject="Kayak rental")  # a fresh document, no leftovers
    assert found(sam, "kayak") == [again.pk] and found(sam, "lifejacket") == []


def test_a_subject_change_is_searchable(sam, queue, make_ticket) -> None:
    ticket = make_ticket(queue, subject="Old title")
    Ticket.objects.filter(pk=ticket.pk).update(subject="Renamed gazebo order")
    assert found(sam, "gazebo") == [ticket.pk]
    assert found(sam, "old title") == []


def test_a_search_count_stops_at_the_cap_and_says_there_are_more(
    sam, queue, make_ticket, monkeypatch
) -> None:
    from backoffice.pagination import CappedCountPaginator
    from tests.conftest import verified_client

    monkeypatch.setattr(CappedCountPaginator, "cap", 2)
    for i in range(3):
        make_ticket(queue, subject=f"Voucher problem {i}")
    make_ticket(queue, subject="Zeppelin tickets")
    client = verified_client(sam, api=True)
    body = client.get("/api/v1/tickets?view=all&q=voucher").json()
    assert body["count"] == 2 and body["count_capped"] is True
    assert len(body["results"]) == 3  # the page itself is not cut, only the count
    body = client.get("/api/v1/tickets?view=all&q=zeppelin").json()
    assert body["count"] == 1 and body["count_capped"] is False
    # A list without a search keeps its exact count.
    assert "count_capped" not in client.get("/api/v1/tickets?view=all").json()
