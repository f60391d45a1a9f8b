"""The escalation operation of the inbox API: the AI agent hands a conversation to a named
human."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status as http
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.errors import Forbidden
from backoffice.idempotency import idempotent
from backoffice.request_operator import request_operator
from identity.authentication import scoped
from tickets import services
from tickets.api.contract import ERROR, valid_input
from tickets.serializers.escalations import EscalationInput, EscalationOutput


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
        request=EscalationInput,
        responses={
            201: EscalationOutput,
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
        data = valid_input(EscalationInput, request)
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
