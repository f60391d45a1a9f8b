"""The ticket operations of the inbox API: the list, the detail, and the versioned writes
(assignment, status, priority, tags, merge) that answer with the changed ticket."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.pagination import CappedSearchPagination, StandardPagination
from backoffice.params import query_int
from backoffice.request_operator import request_operator
from identity.authentication import HumanSessionOnly, scoped
from tickets import selectors, services
from tickets.api.contract import ERROR, WRITE_ERRORS, valid_input
from tickets.models import Tag, Ticket
from tickets.serializers.fast_paths import ticket_detail, ticket_row_values
from tickets.serializers.tickets import (
    AssignmentInput,
    MergeInput,
    PriorityInput,
    StatusInput,
    TagsInput,
    TicketChangeOutSerializer,
    TicketDetailSerializer,
    TicketListItemSerializer,
)


def _changed(ticket_id: int) -> dict[str, Any]:
    ticket = (
        Ticket.objects.select_related("assignee")
        .prefetch_related(Prefetch("tags", queryset=Tag.objects.order_by("name")))
        .get(pk=ticket_id)
    )
    return TicketChangeOutSerializer(ticket).data


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


class TicketListApi(APIView):
    permission_classes = [IsAuthenticated, scoped("tickets:read")]

    @extend_schema(
        operation_id="tickets_list",
        summary="List tickets of an inbox view",
        parameters=[
            OpenApiParameter("view", str, enum=list(selectors.VIEWS), default="mine"),
            OpenApiParameter("status", str, description="Comma-separated statuses."),
            OpenApiParameter("priority", str, description="Comma-separated priorities."),
            OpenApiParameter("queue", int),
            OpenApiParameter("tag", str),
            OpenApiParameter("assignee", str, description="Operator id, or 'none'."),
            OpenApiParameter("q", str, description="Full-text search in subjects and messages."),
            OpenApiParameter("sort", str, enum=list(selectors.SORTS), default="newest"),
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int),
        ],
        responses={200: TicketListItemSerializer(many=True), 403: ERROR},
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        assignee = params.get("assignee", "")
        filters = selectors.InboxFilters(
            status=_csv(params.get("status")),
            priority=_csv(params.get("priority")),
            queue_id=query_int(params.get("queue"), "queue"),
            tag=params.get("tag", ""),
            assignee_id=None if assignee == "none" else query_int(assignee, "assignee"),
            unassigned=assignee == "none",
        )
        # A service principal's "all" is the tickets it escalated (access.visible_q).
        operator = request_operator(request)
        view = "all" if operator.is_service_principal else params.get("view", "mine")
        tickets = selectors.ticket_list_for_inbox(
            operator=operator,
            view=view,
            filters=filters,
            search=params.get("q", ""),
            sort=params.get("sort", "newest"),
        )
        # A search's count stops at a cap ("count_capped": true beyond it): counting every
        # match of a common word is what made such a search slow.
        paginator = CappedSearchPagination() if params.get("q") else StandardPagination()
        page = paginator.paginate_queryset(
            selectors.ticket_ids_page_source(tickets), request, view=self
        )
        ids = [ticket.pk for ticket in page or []]
        rows = selectors.ticket_rows(tickets, ids=ids)
        tags = selectors.tag_names_by_ticket(ticket_ids=ids)
        return paginator.get_paginated_response(
            [ticket_row_values(row, tags[row["id"]]) for row in rows]
        )


class TicketDetailApi(APIView):
    permission_classes = [IsAuthenticated, scoped("tickets:read")]

    @extend_schema(
        operation_id="tickets_retrieve",
        summary="A ticket with its conversation and timeline",
        description="Service principals see only tickets they escalated, without internal "
        "notes, system messages or the timeline.",
        responses={200: TicketDetailSerializer, 404: ERROR},
    )
    def get(self, request: Request, ticket_id: int) -> Response:
        detail = selectors.ticket_detail_for_api(
            operator=request_operator(request), ticket_id=ticket_id
        )
        return Response(
            ticket_detail(
                detail.ticket, internal=detail.internal, revision_counts=detail.revision_counts
            )
        )


class TicketAssignmentApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_assign",
        summary="Assign, reassign (supervisors) or take a ticket",
        request=AssignmentInput,
        responses={200: TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(AssignmentInput, request)
        if data.get("take"):
            services.ticket_take(
                actor=request_operator(request),
                ticket_id=ticket_id,
                expected_version=data["version"],
            )
        else:
            services.ticket_assign(
                actor=request_operator(request),
                ticket_id=ticket_id,
                assignee_id=data["assignee_id"],
                expected_version=data["version"],
            )
        return Response(_changed(ticket_id))


class TicketStatusApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_status",
        summary="Set the status (pending customer / on hold pause the SLA)",
        request=StatusInput,
        responses={200: TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(StatusInput, request)
        services.ticket_status_set(
            actor=request_operator(request),
            ticket_id=ticket_id,
            status=data["status"],
            expected_version=data["version"],
        )
        return Response(_changed(ticket_id))


class TicketPriorityApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_priority",
        summary="Set the priority (SLA due times are recalculated)",
        request=PriorityInput,
        responses={200: TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(PriorityInput, request)
        services.ticket_priority_set(
            actor=request_operator(request),
            ticket_id=ticket_id,
            priority=data["priority"],
            expected_version=data["version"],
        )
        return Response(_changed(ticket_id))


class TicketTagsApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_tags",
        summary="Replace the ticket's tags",
        request=TagsInput,
        responses={200: TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def put(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(TagsInput, request)
        services.ticket_tags_set(
            actor=request_operator(request),
            ticket_id=ticket_id,
            tags=data["tags"],
            expected_version=data["version"],
        )
        return Response(_changed(ticket_id))


class TicketMergeApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_merge",
        summary="Merge this ticket into another of the same customer (supervisors)",
        request=MergeInput,
        responses={200: TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(MergeInput, request)
        target = services.ticket_merge(
            actor=request_operator(request),
            source_id=ticket_id,
            target_id=data["target_id"],
            expected_source_version=data["version"],
            expected_target_version=data["target_version"],
        )
        return Response(_changed(target.pk))
