"""The inbox's search: which tickets hold every word of a search, and how the page of a
common search is found without reading all its matches (issue 15). Hand-written SQL, kept:
the search documents are tables the triggers of migrations 0008 and 0009 keep, not models,
and the plan shapes below are what the figures in docs/performance.md come from."""

from __future__ import annotations

import json

from django.db import connection
from django.db.models import BooleanField, Q
from django.db.models.expressions import RawSQL

from backoffice.pagination import SEARCH_COUNT_CAP
from tickets import search as ticket_search

# Ticket ids whose search document — subject, customer name and e-mail, every message and
# the pairs of CJK characters of all that, one per ticket, kept by the triggers of migrations
# 0008 and 0009 — holds every word. The SQL is constant; the operator's words (and the number
# of a search that is only a number) are bound parameters.
_MATCHES = {
    "postgresql": "SELECT ticket_id FROM tickets_ticketsearch "
    "WHERE document @@ websearch_to_tsquery('english', %s)",
    "sqlite": "SELECT rowid FROM tickets_ticket_search WHERE tickets_ticket_search MATCH %s",
}
# The same, found first: OFFSET 0 keeps PostgreSQL from folding the match into the page
# query. Folded, a search it guesses to be common (0.5% of tickets without statistics) is
# answered by walking the inbox order and probing each ticket's document: 92 ms for a word in
# one ticket at 100,000 tickets; apart, the matches come from the index and are joined (1 ms).
_MATCHES_FIRST = {
    "postgresql": f"{_MATCHES['postgresql']} OFFSET 0",
    "sqlite": _MATCHES["sqlite"],
}
# The same and the ticket of an only-a-number search (SQLite takes no parentheses there).
_MATCHES_FIRST_OR_NUMBER = {
    "postgresql": f"({_MATCHES_FIRST['postgresql']}) UNION ALL SELECT %s",
    "sqlite": f"{_MATCHES_FIRST['sqlite']} UNION ALL SELECT %s",
}
# A common search: in at least this share of the tickets and in more tickets than a search's
# count shows (backoffice.pagination.SEARCH_COUNT_CAP); see search_filter. Below either,
# reading the matches first is cheap.
_COMMON_SHARE = 0.01
_COMMON_MATCHES = SEARCH_COUNT_CAP
# The plan of the matches beside that of every document: the planner's two row counts.
_PG_EXPECTED = (
    "EXPLAIN (FORMAT JSON) SELECT ticket_id FROM tickets_ticketsearch "
    "WHERE document @@ websearch_to_tsquery('english', %s) "
    "UNION ALL SELECT ticket_id FROM tickets_ticketsearch"
)


def _pg_expected(terms: str) -> tuple[float, float]:
    """How many tickets the planner expects to match `terms`, and how many documents there
    are, from the statistics of the documents (ANALYZE keeps the frequencies of the most
    common words; one it does not know is expected in at most 0.5%): one EXPLAIN, nothing
    is read. (0, 0) if the plan cannot be read."""
    with connection.cursor() as cursor:
        cursor.execute(_PG_EXPECTED, (terms,))
        row = cursor.fetchone()
    plan = json.loads(row[0]) if isinstance(row[0], str) else row[0]
    try:
        matches, documents = (part["Plan Rows"] for part in plan[0]["Plan"]["Plans"])
    except (KeyError, IndexError, TypeError, ValueError):
        return 0.0, 0.0
    return float(matches), float(documents)


def _pg_common(terms: str) -> bool:
    matches, documents = _pg_expected(terms)
    return matches > _COMMON_MATCHES and matches >= _COMMON_SHARE * documents


# SQLite: how many tickets match, up to one more than the count's cap (the FTS5 index alone),
# and about how many tickets there are (the highest id: one index step, where COUNT(*)
# reads all 100,000).
_SQLITE_MATCHES_AND_TICKETS = (
    "SELECT (SELECT count(*) FROM (SELECT rowid FROM tickets_ticket_search "
    "WHERE tickets_ticket_search MATCH %s LIMIT %s)), (SELECT max(id) FROM tickets_ticket)"
)
# SQLite, a common search: the inbox order walked (the created_at index), each ticket tested
# against the matches, read once into a temporary index. The unary + keeps SQLite from
# starting from the matches instead, which looks up and sorts every one of them.
_SQLITE_WALK = f"+tickets_ticket.id IN ({_MATCHES['sqlite']})"
_SQLITE_WALK_OR_NUMBER = f"+tickets_ticket.id IN ({_MATCHES['sqlite']} UNION ALL SELECT %s)"


def _sqlite_common(terms: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_SQLITE_MATCHES_AND_TICKETS, (terms, _COMMON_MATCHES + 1))
        matches, tickets = cursor.fetchone()
    return matches > _COMMON_MATCHES and matches >= _COMMON_SHARE * (tickets or 0)


def search_filter(search: str, *, newest_or_oldest: bool = True) -> Q:
    """Every word in the ticket — its subject, its customer's name or e-mail, any message
    (reply, note, customer, AI agent) — each anywhere in it; order and reference numbers,
    card digits and any other number as words; Chinese (and other CJK) text by any two or
    more consecutive characters (tickets.search). A search that is only a number ("17",
    "#17") also finds ticket 17. Both backends search one indexed document per ticket,
    stemmed the same way (English): PostgreSQL a GIN tsvector index, SQLite an FTS5 table.
    Visibility is the caller's filter, applied to the same rows.

    How the page is found (issue 15). At 100,000 tickets a common Chinese pair such as 送到
    is in one ticket in ten: reading every match and sorting them cost PostgreSQL 6,900
    heap pages of documents for the count and again for the page, and SQLite 9,500 ticket
    lookups and a sort. A common search — in 1% of the tickets or more and in more than the
    count's cap — is answered by walking the inbox order until the page is full (~600
    tickets for 50 at 10%): on PostgreSQL a plain semi-join, whose planner then walks
    (probing each ticket's document) and counts by reading matches lazily; on SQLite, for
    the newest/oldest orders that have an index, an IN that cannot drive the query. A
    rarer search reads its matches first (about the cap at most) and sorts them: walking
    for it would cross every ticket. "Common" is PostgreSQL's own estimate (one EXPLAIN;
    nothing is read) and SQLite's count of matches up to the cap (the FTS5 index alone).
    The number of an only-a-number search joins the matches (UNION ALL): as an OR beside
    them it made PostgreSQL walk all 100,000 tickets of the inbox order."""
    search = search.strip()
    number = ticket_search.number_in(search)
    vendor = connection.vendor
    if vendor == "postgresql":
        terms = ticket_search.websearch_query(search)
    else:
        terms = ticket_search.fts5_query(search)
    if not terms:
        return Q(pk=number) if number is not None else Q(pk__in=[])
    if vendor == "postgresql" and _pg_common(terms):
        matches = Q(pk__in=RawSQL(_MATCHES[vendor], (terms,)))  # noqa: S611
        # A common number ("2026"): the OR is the price of keeping the walk.
        return matches | Q(pk=number) if number is not None else matches
    if vendor == "sqlite" and newest_or_oldest and _sqlite_common(terms):
        if number is None:
            walk = RawSQL(_SQLITE_WALK, (terms,), output_field=BooleanField())  # noqa: S611
        else:
            walk = RawSQL(_SQLITE_WALK_OR_NUMBER, (terms, number), output_field=BooleanField())  # noqa: S611
        return Q(walk)
    if number is None:
        return Q(pk__in=RawSQL(_MATCHES_FIRST[vendor], (terms,)))  # noqa: S611
    return Q(pk__in=RawSQL(_MATCHES_FIRST_OR_NUMBER[vendor], (terms, number)))  # noqa: S611
