"""The notification operations of the inbox API: an operator's notifications, and marking
them read."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.pagination import StandardPagination
from backoffice.request_operator import request_operator
from identity.authentication import HumanSessionOnly
from tickets import selectors, services
from tickets.api.contract import valid_input
from tickets.serializers.notifications import MarkReadInput, MarkReadOutput, NotificationSerializer


class NotificationListApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="notifications_list",
        summary="My notifications, newest first",
        parameters=[OpenApiParameter("unread", bool)],
        responses={200: NotificationSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        rows = selectors.notification_list(
            operator=request_operator(request),
            unread_only=request.query_params.get("unread") in ("1", "true"),
        )
        paginator = StandardPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(NotificationSerializer(page, many=True).data)


class NotificationReadApi(APIView):
    permission_classes = [HumanSessionOnly]

    @extend_schema(
        operation_id="notifications_mark_read",
        summary="Mark notifications read (all when no ids are given)",
        request=MarkReadInput,
        responses={200: MarkReadOutput},
    )
    def post(self, request: Request) -> Response:
        data = valid_input(MarkReadInput, request)
        count = services.notifications_mark_read(
            actor=request_operator(request), notification_ids=data.get("ids")
        )
        return Response({"marked": count})
