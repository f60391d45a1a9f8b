"""Reads for the operator pages added beside the inbox: queue administration, the customer
picker of the new-ticket page and the merge candidates of a ticket. (tickets.selectors
holds the inbox's and the API's reads.)"""

from __future__ import annotations

from django.db.models import Case, Count, Prefetch, Q, QuerySet, Value, When
from django.db.models.functions import Upper

from identity.models import Operator, OperatorKind
from tickets import access
from tickets.models import (
    ACTIVE_STATUSES,
    Customer,
    Queue,
    QueueMembership,
    SlaTarget,
    Ticket,
)

_MEMBERS = Prefetch(
    "memberships",
    queryset=QueueMembership.objects.select_related("operator", "operator__availability").order_by(
        "operator__username"
    ),
)


def queue_list_for_admin() -> QuerySet[Queue]:
    """Every queue with its members (and their duty) and its figures: members on duty,
    active tickets, active tickets waiting unrouted. Three queries whatever the count."""
    active = Q(tickets__status__in=ACTIVE_STATUSES)
    return (
        Queue.objects.annotate(
            open_count=Count("tickets", filter=active, distinct=True),
            unrouted_count=Count(
                "tickets",
                filter=active & Q(tickets__unrouted=True, tickets__assignee__isnull=True),
                distinct=True,
            ),
            on_duty_count=Count(
                "memberships",
                filter=Q(
                    memberships__operator__availability__on_duty=True,
                    memberships__operator__is_active=True,
                ),
                distinct=True,
            ),
        )
        .prefetch_related(_MEMBERS, Prefetch("sla_targets", queryset=SlaTarget.objects.all()))
        .order_by("name")
    )


def queue_get_for_admin(*, queue_id: int) -> Queue | None:
    return queue_list_for_admin().filter(pk=queue_id).first()


def queue_member_candidates() -> list[Operator]:
    """Who may be made a member: active humans whose roles let them work tickets."""
    return list(
        Operator.objects.filter(
            is_active=True,
            kind=OperatorKind.HUMAN,
            groups__permissions__codename="work_tickets",
            groups__permissions__content_type__app_label="tickets",
        )
        .distinct()
        .order_by("username")
    )


def operator_label(*, operator_id: int) -> str:
    operator = Operator.objects.filter(pk=operator_id).first()
    return str(operator) if operator else f"Operator {operator_id}"


def customer_search(*, query: str, limit: int = 10) -> list[Customer]:
    """Customers whose email or external id is exactly `query` first, then whose name,
    email or external id contains it; with how many tickets each has."""
    query = query.strip()
    if len(query) < 2:
        return []
    exact = Q(external_id=query) | Q(email_upper=Upper(Value(query)))
    rows = (
        Customer.objects.alias(
            email_upper=Upper("email"),
            rank=Case(When(exact, then=Value(0)), default=Value(1)),
        )
        .filter(
            exact
            | Q(name__icontains=query)
            | Q(email__icontains=query)
            | Q(external_id__icontains=query)
        )
        .annotate(ticket_count=Count("tickets"))
        .order_by("rank", "name", "id")
    )
    return list[Customer](rows[:limit])


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


def customer_get(*, customer_id: int) -> Customer | None:
    return Customer.objects.filter(pk=customer_id).annotate(ticket_count=Count("tickets")).first()
