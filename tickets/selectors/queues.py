"""Reads of queues: the ones an operator works in, the administration page's list with its
members and figures, and who may be made a member."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet

from identity.models import Operator, OperatorKind
from tickets import access
from tickets.models import ACTIVE_STATUSES, Queue, QueueMembership, SlaTarget

_MEMBERS = Prefetch(
    "memberships",
    queryset=QueueMembership.objects.select_related("operator", "operator__availability").order_by(
        "operator__username"
    ),
)


def queue_list_for(*, operator: Operator) -> QuerySet[Queue]:
    if access.sees_all(operator):
        return Queue.objects.order_by("name")
    return Queue.objects.filter(memberships__operator=operator).order_by("name")


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
