"""The two ways a search's page is found (tickets.selectors.search.search_filter): a
search PostgreSQL expects to be common is a plain semi-join that its planner may answer by
walking the inbox order; a rarer one reads its matches first. Whichever way, the same tickets
in the same order, the same capped count, the same visibility. SQLite has one way; the same
tests hold there."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets import selectors
from tickets.models import Ticket
from tickets.selectors import search as ticket_selectors

postgres_only = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="PostgreSQL's planner statistics"
)


@pytest.fixture(params=["common", "rare"])
def path(request, monkeypatch) -> str:
    """Every search taken as common (no threshold) or as rare (a share above 1)."""
    common = request.param == "common"
    monkeypatch.setattr(ticket_selectors, "_COMMON_SHARE", 0.0 if common else 2.0)
    monkeypatch.setattr(ticket_selectors, "_COMMON_MATCHES", -1)
    return str(request.param)


def ids(operator, term: str, view: str = "all") -> list[int]:
    tickets = selectors.ticket_list_for_inbox(operator=operator, view=view, search=term)
    return [t.pk for t in tickets]


def test_newest_first_by_creation_not_by_id_whichever_path(path, sam, queue, make_ticket) -> None:
    made = [make_ticket(queue, subject=f"Voucher refused {i}") for i in range(5)]
    make_ticket(queue, subject="Zeppelin order")
    # Creation times that disagree with the ids: the order must come from created_at.
    now = timezone.now()
    for ticket, days in zip(made, [3, 1, 4, 0, 2], strict=True):
        Ticket.objects.filter(pk=ticket.pk).update(created_at=now - dt.timedelta(days=days))
    newest_first = [made[3].pk, made[1].pk, made[4].pk, made[0].pk, made[2].pk]
    assert ids(sam, "voucher") == newest_first
    sql = str(selectors.ticket_list_for_inbox(operator=sam, view="all", search="voucher").query)
    walked = "+tickets_ticket.id IN" in sql or (
        connection.vendor == "postgresql" and "OFFSET 0" not in sql
    )
    assert walked == (path == "common")
    assert ids(sam, "zeppelin") != [] and ids(sam, "parcel lost") == []


def test_an_only_a_number_search_finds_the_ticket_and_the_number_in_texts_whichever_path(
    path, sam, queue, make_ticket
) -> None:
    target = make_ticket(queue, subject="Wrong size")
    mentions = make_ticket(queue, subject=f"Duplicate of {target.pk}")
    make_ticket(queue, subject="Unrelated")
    assert sorted(ids(sam, str(target.pk))) == sorted([target.pk, mentions.pk])
    assert sorted(ids(sam, f"#{target.pk}")) == sorted([target.pk, mentions.pk])
    assert ids(sam, "99999999") == []


def test_an_agent_sees_only_the_matches_of_their_queues_whichever_path(
    path, alice, sam, queue, other_queue, make_ticket
) -> None:
    join(alice, queue, on_duty=False)
    mine = [make_ticket(queue, subject=f"送到 问题 {i}") for i in range(3)]
    hidden = [make_ticket(other_queue, subject=f"送到 问题 {i}") for i in range(3)]
    assert sorted(ids(sam, "送到")) == sorted(t.pk for t in mine + hidden)
    assert sorted(ids(alice, "送到", view=selectors.SEARCH_VIEW)) == sorted(t.pk for t in mine)
    assert sorted(ids(alice, "送到", view="queues")) == sorted(t.pk for t in mine)
    html = verified_client(alice).get("/tickets/?q=送到").content.decode()  # the page's search
    assert all(f"/tickets/{t.pk}/" in html for t in mine)
    assert not any(f"/tickets/{t.pk}/" in html for t in hidden)


def test_the_api_count_stops_at_the_cap_and_pages_follow_whichever_path(
    path, sam, queue, make_ticket, monkeypatch
) -> None:
    from backoffice.pagination import CappedCountPaginator

    monkeypatch.setattr(CappedCountPaginator, "cap", 3)
    made = [make_ticket(queue, subject=f"Voucher problem {i}") for i in range(5)]
    client = verified_client(sam, api=True)
    first = client.get("/api/v1/tickets?view=all&q=voucher&page_size=2").json()
    assert first["count"] == 3 and first["count_capped"] is True
    second = client.get("/api/v1/tickets?view=all&q=voucher&page_size=2&page=2").json()
    seen = [row["id"] for row in first["results"] + second["results"]]
    assert seen == [t.pk for t in reversed(made)][:4]


@postgres_only
def test_postgres_leaves_to_its_planner_only_what_its_statistics_call_common(
    sam, queue, make_ticket, monkeypatch
) -> None:
    """A word in every ticket is common once ANALYZE has seen it; a word in one ticket of
    300, or one the statistics do not know, is rare and its matches are read first; so is
    any word before ANALYZE. (The minimum of expected matches, the count's cap, is lowered
    to fit a test's 300 tickets.)"""
    monkeypatch.setattr(ticket_selectors, "_COMMON_MATCHES", 10)
    first = make_ticket(queue, subject="Voucher refused")
    make_ticket(queue, subject="Voucher for a zeppelin ride")
    copies = []
    for _ in range(298):
        copy = Ticket.objects.get(pk=first.pk)
        copy.pk = None
        copies.append(copy)
    Ticket.objects.bulk_create(copies)  # the triggers write their documents
    assert not ticket_selectors._pg_common("voucher")  # no statistics yet: 0.5%
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tickets_ticketsearch")
    assert ticket_selectors._pg_common("voucher")
    assert not ticket_selectors._pg_common("zeppelin")
    assert not ticket_selectors._pg_common("gazebo")
    common = str(selectors.ticket_list_for_inbox(operator=sam, view="all", search="voucher").query)
    rare = str(selectors.ticket_list_for_inbox(operator=sam, view="all", search="zeppelin").query)
    assert "OFFSET 0" not in common and "OFFSET 0" in rare
    assert len(ids(sam, "voucher")) == 300 and len(ids(sam, "zeppelin")) == 1
