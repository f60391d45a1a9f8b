"""Reads of tickets: the inbox list and its search, a ticket's page and API detail, the
dashboard's counts and a ticket's merge candidates. Lists use select_related /
prefetch_related so that a page costs the same handful of queries whatever its length."""

from __future__ import annotations

import dataclasses
import unicodedata
from typing import Any

from django.db.models import Count, F, Prefetch, Q, QuerySet, prefetch_related_objects
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from backoffice.errors import Forbidden
from identity.models import Operator
from tickets import access
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
from tickets.selectors.search import search_filter

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
        tickets = tickets.filter(search_filter(search, newest_or_oldest=walkable))
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
