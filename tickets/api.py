"""The inbox REST API: one view per operation, documented with drf-spectacular.

Humans call it with their verified session; the AI agent's service principal with a bearer
token limited by scopes (`escalations:create`, `tickets:read`, `tickets:write`). Ticket writes
carry the `version` the caller saw; a stale one gets 409 and changes nothing. The escalation
endpoint is idempotent on the Idempotency-Key header.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers as drf_serializers
from rest_framework import status as http
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.errors import Forbidden
from backoffice.idempotency import idempotent
from backoffice.pagination import CappedSearchPagination, StandardPagination
from backoffice.params import query_int
from backoffice.request_operator import request_operator
from identity.authentication import HumanSessionOnly, scoped
from tickets import selectors, serializers, services
from tickets.models import Message, Tag, Ticket

ERROR = inline_serializer(
    "Error",
    {
        "error": inline_serializer(
            "ErrorBody",
            {
                "code": drf_serializers.CharField(),
                "message": drf_serializers.CharField(),
                "fields": drf_serializers.DictField(required=False),
            },
        )
    },
)
WRITE_ERRORS = {400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR}


def _changed(ticket_id: int) -> dict[str, Any]:
    ticket = (
        Ticket.objects.select_related("assignee")
        .prefetch_related(Prefetch("tags", queryset=Tag.objects.order_by("name")))
        .get(pk=ticket_id)
    )
    return serializers.TicketChangeOutSerializer(ticket).data


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
        responses={200: serializers.TicketListItemSerializer(many=True), 403: ERROR},
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
            [serializers.ticket_row_values(row, tags[row["id"]]) for row in rows]
        )


class TicketDetailApi(APIView):
    permission_classes = [IsAuthenticated, scoped("tickets:read")]

    @extend_schema(
        operation_id="tickets_retrieve",
        summary="A ticket with its conversation and timeline",
        description="Service principals see only tickets they escalated, without internal "
        "notes, system messages or the timeline.",
        responses={200: serializers.TicketDetailSerializer, 404: ERROR},
    )
    def get(self, request: Request, ticket_id: int) -> Response:
        detail = selectors.ticket_detail_for_api(
            operator=request_operator(request), ticket_id=ticket_id
        )
        return Response(
            serializers.ticket_detail(
                detail.ticket, internal=detail.internal, revision_counts=detail.revision_counts
            )
        )


class TicketReplyApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_reply",
        summary="Reply to the customer (public)",
        request=serializers.ReplyInput,
        responses={201: serializers.MessageOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.ReplyInput, request)
        message = services.ticket_reply(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=data["body"],
            expected_version=data["version"],
            status=data.get("status", ""),
        )
        return Response(
            serializers.MessageOutSerializer(_message(message.pk)).data,
            status=http.HTTP_201_CREATED,
        )


class TicketNoteApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_note_add",
        summary="Add an internal note (@username notifies)",
        request=serializers.NoteInput,
        responses={201: serializers.MessageOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.NoteInput, request)
        message = services.ticket_note_add(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=data["body"],
            expected_version=data["version"],
        )
        return Response(
            serializers.MessageOutSerializer(_message(message.pk)).data,
            status=http.HTTP_201_CREATED,
        )


class TicketNoteEditApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_note_edit",
        summary="Edit an internal note (the previous text is kept as a revision)",
        request=serializers.NoteInput,
        responses={200: serializers.MessageOutSerializer, **WRITE_ERRORS},
    )
    def patch(self, request: Request, ticket_id: int, note_id: int) -> Response:
        data = _valid(serializers.NoteInput, request)
        message = services.ticket_note_edit(
            actor=request_operator(request),
            ticket_id=ticket_id,
            note_id=note_id,
            body=data["body"],
            expected_version=data["version"],
        )
        return Response(serializers.MessageOutSerializer(_message(message.pk)).data)


class TicketAssignmentApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_assign",
        summary="Assign, reassign (supervisors) or take a ticket",
        request=serializers.AssignmentInput,
        responses={200: serializers.TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.AssignmentInput, request)
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
        request=serializers.StatusInput,
        responses={200: serializers.TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.StatusInput, request)
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
        request=serializers.PriorityInput,
        responses={200: serializers.TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.PriorityInput, request)
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
        request=serializers.TagsInput,
        responses={200: serializers.TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def put(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.TagsInput, request)
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
        request=serializers.MergeInput,
        responses={200: serializers.TicketChangeOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.MergeInput, request)
        target = services.ticket_merge(
            actor=request_operator(request),
            source_id=ticket_id,
            target_id=data["target_id"],
            expected_source_version=data["version"],
            expected_target_version=data["target_version"],
        )
        return Response(_changed(target.pk))


class TicketCustomerMessageApi(APIView):
    permission_classes = [IsAuthenticated, scoped("tickets:write")]

    @extend_schema(
        operation_id="tickets_customer_message",
        summary="Relay a new customer message (the AI agent's runtime, for tickets it escalated)",
        request=serializers.CustomerMessageInput,
        responses={201: serializers.MessageOutSerializer, **WRITE_ERRORS},
    )
    @idempotent(scope="tickets.customer_message")
    def post(self, request: Request, ticket_id: int) -> Response:
        data = _valid(serializers.CustomerMessageInput, request)
        message = services.ticket_customer_message_add(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=data["body"],
            author_label=data.get("author", ""),
        )
        return Response(
            serializers.MessageOutSerializer(_message(message.pk)).data,
            status=http.HTTP_201_CREATED,
        )


class EscalationCreateApi(APIView):
    permission_classes = [IsAuthenticated, scoped("escalations:create")]

    @extend_schema(
        operation_id="escalations_create",
        summary="Hand a conversation to a named human (the AI agent)",
        description="Creates a ticket (priority from the category: dispute → urgent, agent "
        "failure and policy exception → high, customer request → normal, out of scope → low), "
        "routes it to an on-duty operator with capacity and returns that owner. Send an "
        "Idempotency-Key header; a retry with the same key and body returns the original "
        "answer, the same key with a different body gets 422, a duplicate still in flight 409.",
        parameters=[
            OpenApiParameter(
                "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, required=True
            )
        ],
        request=serializers.EscalationInput,
        responses={
            201: serializers.EscalationOutput,
            400: ERROR,
            403: ERROR,
            409: ERROR,
            422: ERROR,
        },
    )
    @idempotent(scope="tickets.escalation")
    def post(self, request: Request) -> Response:
        actor = request_operator(request)
        if not actor.is_service_principal:
            raise Forbidden(gettext("Escalations come from the AI agent's service principal."))
        data = _valid(serializers.EscalationInput, request)
        customer = data["customer"]
        result = services.ticket_open_for_escalation(
            actor=actor,
            customer_name=customer["name"],
            customer_email=customer.get("email", ""),
            customer_external_id=customer.get("external_id", ""),
            category=data["category"],
            reason=data["reason"],
            summary=data["summary"],
            transcript=[
                {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in turn.items()}
                for turn in data["transcript"]
            ],
            requested_action=data["requested_action"],
            subject=data.get("subject", ""),
            queue_slug=data.get("queue", ""),
            conversation_id=data.get("conversation_id", ""),
            tags=data.get("tags", []),
        )
        body = {
            "ticket_id": result.ticket_id,
            "owner": {"id": result.owner_id, "name": result.owner_name}
            if result.owner_id
            else None,
            "owner_name": result.owner_name,
            "unrouted": result.unrouted,
            "priority": result.priority,
            "queue": result.queue,
        }
        return Response(body, status=http.HTTP_201_CREATED)


class NotificationListApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="notifications_list",
        summary="My notifications, newest first",
        parameters=[OpenApiParameter("unread", bool)],
        responses={200: serializers.NotificationSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        rows = selectors.notification_list(
            operator=request_operator(request),
            unread_only=request.query_params.get("unread") in ("1", "true"),
        )
        paginator = StandardPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(
            serializers.NotificationSerializer(page, many=True).data
        )


class NotificationReadApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="notifications_mark_read",
        summary="Mark notifications read (all when no ids are given)",
        request=serializers.MarkReadInput,
        responses={200: serializers.MarkReadOutput},
    )
    def post(self, request: Request) -> Response:
        data = _valid(serializers.MarkReadInput, request)
        count = services.notifications_mark_read(
            actor=request_operator(request), notification_ids=data.get("ids")
        )
        return Response({"marked": count})


def _valid(serializer_class: type[drf_serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _message(message_id: int) -> Message:
    return (
        Message.objects.select_related("author", "ticket")
        .prefetch_related("revisions")
        .get(pk=message_id)
    )
