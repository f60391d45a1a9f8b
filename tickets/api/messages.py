"""The message operations of the inbox API: a public reply, internal notes and their edits,
and the customer messages the AI agent's runtime relays."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status as http
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.idempotency import idempotent
from backoffice.request_operator import request_operator
from identity.authentication import HumanSessionOnly, scoped
from tickets import services
from tickets.api.contract import WRITE_ERRORS, valid_input
from tickets.models import Message
from tickets.serializers.tickets import (
    CustomerMessageInput,
    MessageOutSerializer,
    NoteInput,
    ReplyInput,
)


class TicketReplyApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_reply",
        summary="Reply to the customer (public)",
        request=ReplyInput,
        responses={201: MessageOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(ReplyInput, request)
        message = services.ticket_reply(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=data["body"],
            expected_version=data["version"],
            status=data.get("status", ""),
        )
        return _message_response(message.pk, status=http.HTTP_201_CREATED)


class TicketNoteApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_note_add",
        summary="Add an internal note (@username notifies)",
        request=NoteInput,
        responses={201: MessageOutSerializer, **WRITE_ERRORS},
    )
    def post(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(NoteInput, request)
        message = services.ticket_note_add(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=data["body"],
            expected_version=data["version"],
        )
        return _message_response(message.pk, status=http.HTTP_201_CREATED)


class TicketNoteEditApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="tickets_note_edit",
        summary="Edit an internal note (the previous text is kept as a revision)",
        request=NoteInput,
        responses={200: MessageOutSerializer, **WRITE_ERRORS},
    )
    def patch(self, request: Request, ticket_id: int, note_id: int) -> Response:
        data = valid_input(NoteInput, request)
        message = services.ticket_note_edit(
            actor=request_operator(request),
            ticket_id=ticket_id,
            note_id=note_id,
            body=data["body"],
            expected_version=data["version"],
        )
        return _message_response(message.pk, status=http.HTTP_200_OK)


class TicketCustomerMessageApi(APIView):
    permission_classes = [IsAuthenticated, scoped("tickets:write")]

    @extend_schema(
        operation_id="tickets_customer_message",
        summary="Relay a new customer message (the AI agent's runtime, for tickets it escalated)",
        request=CustomerMessageInput,
        responses={201: MessageOutSerializer, **WRITE_ERRORS},
    )
    @idempotent(scope="tickets.customer_message")
    def post(self, request: Request, ticket_id: int) -> Response:
        data = valid_input(CustomerMessageInput, request)
        message = services.ticket_customer_message_add(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=data["body"],
            author_label=data.get("author", ""),
        )
        return _message_response(message.pk, status=http.HTTP_201_CREATED)


def _message_response(message_id: int, *, status: int) -> Response:
    """The message as the API shows it (re-read with its author, ticket and revisions)."""
    message = (
        Message.objects.select_related("author", "ticket")
        .prefetch_related("revisions")
        .get(pk=message_id)
    )
    return Response(MessageOutSerializer(message).data, status=status)
