"""Reads of tickets: the inbox list and its search, a ticket's page and API detail, the
dashboard's counts and a ticket's merge candidates. Lists use select_related /
prefetch_related so that a page costs the same handful of queries whatever its length."""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Count, F, Prefetch, Q, QuerySet, prefetch_related_objects
from django.db.models.expressions import RawSQL
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from backoffice.errors import Forbidden
from backoffice.pagination import SEARCH_COUNT_CAP
from identity.models import Operator
from tickets import access
from tickets import search as ticket_search
from tickets.models import (
    ACTIVE_STATUSES,
    Message,
    MessageKind,
    NoteRevision,
    QueueMembership,
    Tag,
    Ticket,
    TicketEvent,
)

VIEWS: dict[str, str | Promise] = {
    "mine": gettext_lazy("Mine"),
    "unassigned": gettext_lazy("Unassigned"),
    "queues": gettext_lazy("My queues"),
    "escalated": gettext_lazy("Escalated by AI"),
    "breaching": gettext_lazy("Breaching SLA"),
    "all": gettext_lazy("All"),
}
# Not a tab: what a search covers — every ticket the operator may see, whatever its status.
SEARCH_VIEW = "search"
SORTS: dict[str, tuple[str, ...]] = {
    "newest": ("-created_at", "-id"),
    "oldest": ("created_at", "id"),
    "updated": ("-updated_at", "-id"),
    "priority": ("-priority_rank", "created_at", "id"),
    "due": ("sla_next_due_at", "id"),
}
SORT_LABELS: dict[str, str | Promise] = {
    "newest": gettext_lazy("Newest first"),
    "oldest": gettext_lazy("Oldest first"),
    "updated": gettext_lazy("Recently updated"),
    "priority": gettext_lazy("Most urgent first"),
    "due": gettext_lazy("SLA due soonest"),
}
# What an inbox row shows: loading only these keeps a page cheap (no transcripts, no
# operator password hashes) without extra queries.
LIST_FIELDS = (
    "subject",
    "status",
    "priority",
    "channel",
    "unrouted",
    "version",
    "created_at",
    "updated_at",
    "first_response_due_at",
    "next_response_due_at",
    "resolution_due_at",
    "sla_next_due_at",
    "sla_paused_since",
    "sla_paused_seconds",
    "sla_near_breach",
    "sla_breached",
    "queue__name",
    "queue__slug",
    "assignee__username",
    "assignee__display_name",
    "customer__name",
    "customer__email",
    "customer__external_id",
    "escalation__category",
)


@dataclasses.dataclass(frozen=True)
class InboxFilters:
    status: tuple[str, ...] = ()
    priority: tuple[str, ...] = ()
    queue_id: int | None = None
    tag: str = ""
    assignee_id: int | None = None
    unassigned: bool = False


def views_for(operator: Operator) -> dict[str, str | Promise]:
    if access.sees_all(operator):
        return VIEWS
    return {key: label for key, label in VIEWS.items() if key != "all"}


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
# count shows (backoffice.pagination.SEARCH_COUNT_CAP); see _search_filter. Below either,
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


def _search_filter(search: str, *, newest_or_oldest: bool = True) -> Q:
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


def ticket_list_for_inbox(
    *,
    operator: Operator,
    view: str = "mine",
    filters: InboxFilters | None = None,
    search: str = "",
    sort: str = "newest",
) -> QuerySet[Ticket]:
    """The tickets of one inbox view that `operator` may see, filtered, searched, sorted.

    Views: mine (owned by me, active), unassigned (active, no owner), queues (active, in my
    queues), escalated (active, handed over by the AI agent), breaching (active, near or
    past an SLA deadline), all (supervisors; every status). A status filter replaces the
    view's "active" restriction. SEARCH_VIEW, the page's search: every ticket the operator
    may see, in every status."""
    if view not in VIEWS and view != SEARCH_VIEW:
        view = "mine"
    if view == "all" and not (access.sees_all(operator) or operator.is_service_principal):
        raise Forbidden(gettext("Only supervisors see all tickets."))
    filters = filters or InboxFilters()
    # "Mine" and "My queues" only ever contain tickets the operator may see, so they skip the
    # visibility OR (which would make the page count scan every visible ticket).
    implied = view in ("mine", "queues") and access.can_use_inbox(operator)
    tickets = Ticket.objects.all() if implied else Ticket.objects.filter(access.visible_q(operator))
    if view == "mine":
        tickets = tickets.filter(assignee=operator)
    elif view == "unassigned":
        tickets = tickets.filter(assignee__isnull=True)
    elif view == "queues":
        tickets = tickets.filter(
            queue_id__in=QueueMembership.objects.filter(operator=operator).values("queue_id")
        )
    elif view == "escalated":
        tickets = tickets.filter(escalation__isnull=False)
    elif view == "breaching":
        tickets = tickets.filter(Q(sla_near_breach=True) | Q(sla_breached=True))
    if filters.status:
        tickets = tickets.filter(status__in=filters.status)
    elif view not in ("all", SEARCH_VIEW):
        tickets = tickets.filter(status__in=ACTIVE_STATUSES)
    if filters.priority:
        tickets = tickets.filter(priority__in=filters.priority)
    if filters.queue_id:
        tickets = tickets.filter(queue_id=filters.queue_id)
    if filters.tag:
        tickets = tickets.filter(
            # Stored tags are NFKC and lower case (services.normalise_tags).
            pk__in=Ticket.tags.through.objects.filter(
                tag__name=unicodedata.normalize("NFKC", filters.tag).strip().lower()
            ).values("ticket_id")
        )
    if filters.unassigned:
        tickets = tickets.filter(assignee__isnull=True)
    elif filters.assignee_id:
        tickets = tickets.filter(assignee_id=filters.assignee_id)
    if sort not in SORTS:
        sort = "newest"
    if search.strip():
        walkable = sort in ("newest", "oldest")
        tickets = tickets.filter(_search_filter(search, newest_or_oldest=walkable))
    order = SORTS[sort]
    if sort == "due":
        tickets = tickets.order_by(F("sla_next_due_at").asc(nulls_last=True), "id")
    else:
        tickets = tickets.order_by(*order)
    return (
        tickets.select_related("customer", "queue", "assignee", "escalation")
        .only(*LIST_FIELDS)
        .prefetch_related(Prefetch("tags", queryset=Tag.objects.only("name").order_by("name")))
    )


# The API's list rows, read as plain values: no model instances for a page of 50 tickets and
# their customer, queue, owner and escalation (see tickets.serializers.ticket_row_values).
ROW_VALUES = (
    "id",
    *(f for f in LIST_FIELDS if "__" not in f),
    "queue_id",
    "queue__name",
    "queue__slug",
    "assignee_id",
    "assignee__username",
    "assignee__display_name",
    "customer_id",
    "customer__name",
    "customer__email",
    "customer__external_id",
    "escalation__category",
)


def ticket_ids_page_source(tickets: QuerySet[Ticket]) -> QuerySet[Ticket]:
    """What to paginate: the same tickets, same order, as bare ids. Its COUNT has only the
    joins the filters need (a values() query with the row's related columns would count
    through those joins too, which costs ~200 ms at 100,000 tickets on SQLite)."""
    return tickets.select_related(None).prefetch_related(None).only("id")


def ticket_rows(tickets: QuerySet[Ticket], *, ids: list[int]) -> list[dict[str, Any]]:
    """The tickets of `ids` — one page of `tickets` (from ticket_list_for_inbox, paginated by
    ticket_ids_page_source) — as dictionaries of ROW_VALUES, in the order of `ids`.

    The ids were chosen by `tickets`' filters (visibility, view, search) in the page query;
    they are not applied again: a search's full-text match would run a third time (count,
    page, rows) for 50 known ids, and for a word in one ticket in ten that third match was
    a third of the request at 100,000 tickets."""
    rows = tickets.model.objects.filter(pk__in=ids).values(*ROW_VALUES).order_by()
    by_id = {row["id"]: row for row in rows}
    return [by_id[pk] for pk in ids if pk in by_id]


def tag_names_by_ticket(*, ticket_ids: list[int]) -> dict[int, list[str]]:
    names: dict[int, list[str]] = {ticket_id: [] for ticket_id in ticket_ids}
    rows = (
        Ticket.tags.through.objects.filter(ticket_id__in=ticket_ids)
        .order_by("tag__name")
        .values_list("ticket_id", "tag__name")
    )
    for ticket_id, name in rows:
        names[ticket_id].append(name)
    return names


def ticket_next_for(*, operator: Operator, after_id: int) -> int | None:
    """The ticket to work after `after_id`: the operator's own active tickets, soonest SLA
    deadline first, else those of their queues; None when nothing else waits."""
    for view in ("mine", "queues"):
        tickets = ticket_list_for_inbox(operator=operator, view=view, sort="due")
        following = tickets.exclude(pk=after_id).values_list("pk", flat=True).first()
        if following is not None:
            return int(following)
    return None


def ticket_visible(*, operator: Operator, ticket_id: int) -> bool:
    """Whether the ticket exists and `operator` may see it (one query)."""
    return Ticket.objects.filter(access.visible_q(operator), pk=ticket_id).exists()


def ticket_get_for_operator(*, operator: Operator, ticket_id: int) -> Ticket:
    """One ticket with its conversation, note revisions, timeline and tags, or NotFound
    when it does not exist or the operator may not see it."""
    ticket = (
        Ticket.objects.select_related(
            "customer", "queue", "assignee", "merged_into", "escalation__created_by"
        )
        .prefetch_related(
            Prefetch("tags", queryset=Tag.objects.order_by("name")),
            Prefetch(
                "messages",
                queryset=Message.objects.select_related("author", "merged_from").prefetch_related(
                    Prefetch(
                        "revisions",
                        queryset=NoteRevision.objects.select_related("edited_by"),
                    )
                ),
            ),
            Prefetch("events", queryset=TicketEvent.objects.order_by("created_at", "id")),
            Prefetch(
                # order_by(): without it the model's "-created_at" ordering makes SQLite walk
                # the created_at index over every ticket instead of looking up merged_into.
                "merged_tickets",
                queryset=Ticket.objects.only("id", "subject", "merged_into").order_by(),
            ),
        )
        .filter(pk=ticket_id)
        .first()
    )
    return access.ensure_view(operator, ticket)


@dataclasses.dataclass(frozen=True)
class TicketDetail:
    """What the REST detail shows: the ticket (tags, messages and, for operators, the
    timeline prefetched) and how many earlier texts each edited note has."""

    ticket: Ticket
    internal: bool
    revision_counts: dict[int, int]


def ticket_detail_for_api(*, operator: Operator, ticket_id: int) -> TicketDetail:
    """ticket_get_for_operator() trimmed to what the REST detail returns: the visibility
    check runs on the bare ticket before anything else is read; note revisions are counted
    (only for notes that were edited) instead of loaded with their editors; the merged-in
    tickets, which the API does not list, are not read; a service principal's request
    reads neither the timeline nor the internal and system messages it may not see."""
    ticket = access.ensure_view(
        operator,
        Ticket.objects.select_related("customer", "queue", "assignee", "escalation")
        .filter(pk=ticket_id)
        .first(),
    )
    internal = not operator.is_service_principal
    messages = Message.objects.select_related("author")
    if not internal:
        messages = messages.exclude(kind__in=[MessageKind.INTERNAL_NOTE, MessageKind.SYSTEM])
    lookups: list[Prefetch] = [
        Prefetch("tags", queryset=Tag.objects.order_by("name")),
        Prefetch("messages", queryset=messages),
    ]
    if internal:
        lookups.append(
            Prefetch("events", queryset=TicketEvent.objects.order_by("created_at", "id"))
        )
    prefetch_related_objects([ticket], *lookups)
    edited = [m.pk for m in ticket.messages.all() if m.edited_at is not None]
    counts: dict[int, int] = {}
    if edited:
        counts = dict(
            NoteRevision.objects.filter(message_id__in=edited)
            .values("message_id")
            .annotate(n=Count("*"))
            .values_list("message_id", "n")
        )
    return TicketDetail(ticket=ticket, internal=internal, revision_counts=counts)


def ticket_versions(*, ticket_ids: list[int]) -> dict[int, int]:
    return dict(Ticket.objects.filter(pk__in=ticket_ids).values_list("pk", "version"))


def inbox_counts(*, operator: Operator) -> dict[str, int]:
    """Figures for the dashboard panel: my open tickets, unowned ones I can see, and my
    tickets near or past an SLA deadline."""
    visible = Ticket.objects.filter(access.visible_q(operator), status__in=ACTIVE_STATUSES)
    return {
        "mine": visible.filter(assignee=operator).count(),
        "unassigned": visible.filter(assignee__isnull=True).count(),
        "breaching": visible.filter(Q(sla_near_breach=True) | Q(sla_breached=True)).count(),
    }


def merge_candidates(*, operator: Operator, ticket: Ticket, limit: int = 10) -> list[Ticket]:
    """The same customer's other tickets the operator can see and that are not merged
    away: what a merge of this ticket can target."""
    return list(
        Ticket.objects.filter(
            access.visible_q(operator), customer_id=ticket.customer_id, merged_into__isnull=True
        )
        .exclude(pk=ticket.pk)
        .only("id", "subject", "status", "created_at", "version")
        .order_by("-created_at")[:limit]
    )
