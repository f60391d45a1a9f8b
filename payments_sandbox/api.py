"""The payments REST API: one view per operation.

Humans call it with their verified session and are judged by role (access.py); the AI
agent's service principal calls it with a bearer token and is judged by scope: it may
request (refunds:request) and preview (refunds:preview) refunds and read them, and can never
approve, reject or cancel one. Every write takes an Idempotency-Key (backoffice.idempotency);
approving and rejecting also need a fresh step-up.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status as http
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.idempotency import idempotent
from backoffice.pagination import StandardPagination
from backoffice.params import query_int
from backoffice.request_operator import request_operator
from identity.authentication import allowed
from identity.stepup import StepUpFresh
from payments_sandbox import access, selectors, serializers, services

IDEMPOTENCY_SCOPE = "payments"


class _Paginated(APIView):
    def paginate(self, request: Request, queryset: Any, serializer: Any) -> Response:
        paginator = StandardPagination()
        page: list[Any] | None = paginator.paginate_queryset(queryset, request, view=self)
        return paginator.get_paginated_response(serializer(page, many=True).data)


# -- payments -------------------------------------------------------------------------------


class PaymentListApi(_Paginated):
    permission_classes = [
        IsAuthenticated,
        allowed(human=access.can_view_payments, scopes=("payments:read",)),
    ]

    @extend_schema(responses=serializers.PaymentOut(many=True))
    def get(self, request: Request) -> Response:
        qs = selectors.payment_list(
            status=request.query_params.get("status", ""),
            currency=request.query_params.get("currency", ""),
            search=request.query_params.get("q", ""),
        )
        return self.paginate(request, qs, serializers.PaymentOut)


class PaymentDetailApi(APIView):
    permission_classes = [
        IsAuthenticated,
        allowed(human=access.can_view_payments, scopes=("payments:read",)),
    ]

    @extend_schema(responses=serializers.PaymentOut)
    def get(self, request: Request, payment_id: int) -> Response:
        return Response(serializers.PaymentOut(selectors.payment_get(payment_id=payment_id)).data)


# -- refunds --------------------------------------------------------------------------------


class RefundListApi(_Paginated):
    permission_classes = [
        IsAuthenticated,
        allowed(human=access.can_view_refunds, scopes=("refunds:read",)),
    ]

    @extend_schema(responses=serializers.RefundOut(many=True))
    def get(self, request: Request) -> Response:
        qs = selectors.refund_list(
            status=request.query_params.get("status", ""),
            payment_id=query_int(request.query_params.get("payment_id"), "payment_id"),
        )
        return self.paginate(request, qs, serializers.RefundOut)


class RefundDetailApi(APIView):
    permission_classes = [
        IsAuthenticated,
        allowed(human=access.can_view_refunds, scopes=("refunds:read",)),
    ]

    @extend_schema(responses=serializers.RefundOut)
    def get(self, request: Request, refund_id: int) -> Response:
        return Response(serializers.RefundOut(selectors.refund_get(refund_id=refund_id)).data)


class RefundRequestApi(APIView):
    permission_classes = [
        IsAuthenticated,
        allowed(human=access.can_request_refund, scopes=("refunds:request",)),
    ]

    @extend_schema(request=serializers.RefundRequestIn, responses={201: serializers.RefundOut})
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request) -> Response:
        data = serializers.RefundRequestIn(data=request.data)
        data.is_valid(raise_exception=True)
        refund = services.refund_request(actor=request_operator(request), **data.validated_data)
        return Response(serializers.RefundOut(refund).data, status=http.HTTP_201_CREATED)


class RefundPreviewApi(APIView):
    """Validation and rehearsal only: nothing is written, so no Idempotency-Key is needed."""

    permission_classes = [
        IsAuthenticated,
        allowed(human=access.can_request_refund, scopes=("refunds:preview",)),
    ]

    @extend_schema(request=serializers.RefundPreviewIn, responses=serializers.RefundPreviewOut)
    def post(self, request: Request) -> Response:
        data = serializers.RefundPreviewIn(data=request.data)
        data.is_valid(raise_exception=True)
        preview = services.refund_preview(actor=request_operator(request), **data.validated_data)
        return Response(serializers.preview_out(preview))


class _Decision(APIView):
    # Token callers never pass StepUpFresh: a service principal can never decide a refund.
    permission_classes = [
        IsAuthenticated,
        allowed(human=access.can_approve_refund),
        StepUpFresh,
    ]


class RefundApproveApi(_Decision):
    @extend_schema(request=serializers.DecisionIn, responses=serializers.RefundOut)
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request, refund_id: int) -> Response:
        data = serializers.DecisionIn(data=request.data)
        data.is_valid(raise_exception=True)
        refund = services.refund_approve(
            actor=request_operator(request),
            refund_id=refund_id,
            reason=data.validated_data["reason"],
        )
        return Response(serializers.RefundOut(refund).data)


class RefundRejectApi(_Decision):
    @extend_schema(request=serializers.RejectIn, responses=serializers.RefundOut)
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request, refund_id: int) -> Response:
        data = serializers.RejectIn(data=request.data)
        data.is_valid(raise_exception=True)
        refund = services.refund_reject(
            actor=request_operator(request),
            refund_id=refund_id,
            reason=data.validated_data["reason"],
        )
        return Response(serializers.RefundOut(refund).data)


class RefundCancelApi(APIView):
    permission_classes = [IsAuthenticated, allowed(human=access.can_view_refunds)]

    @extend_schema(request=serializers.DecisionIn, responses=serializers.RefundOut)
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request, refund_id: int) -> Response:
        data = serializers.DecisionIn(data=request.data)
        data.is_valid(raise_exception=True)
        refund = services.refund_cancel(
            actor=request_operator(request),
            refund_id=refund_id,
            reason=data.validated_data["reason"],
        )
        return Response(serializers.RefundOut(refund).data)


# -- reconciliation -------------------------------------------------------------------------


class ReconciliationReportListApi(_Paginated):
    permission_classes = [IsAuthenticated, allowed(human=access.can_view_reconciliation)]

    @extend_schema(responses=serializers.ReconciliationReportOut(many=True))
    def get(self, request: Request) -> Response:
        return self.paginate(
            request, selectors.reconciliation_report_list(), serializers.ReconciliationReportOut
        )


class ReconciliationRunApi(APIView):
    permission_classes = [IsAuthenticated, allowed(human=access.can_resolve_reconciliation)]

    @extend_schema(
        request=serializers.ReconcileIn, responses={201: serializers.ReconciliationReportDetailOut}
    )
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request) -> Response:
        data = serializers.ReconcileIn(data=request.data)
        data.is_valid(raise_exception=True)
        report = services.reconcile_run(actor=request_operator(request), **data.validated_data)
        return Response(serializers.ReconciliationReportDetailOut(report).data, status=201)


class ReconciliationReportDetailApi(APIView):
    permission_classes = [IsAuthenticated, allowed(human=access.can_view_reconciliation)]

    @extend_schema(responses=serializers.ReconciliationReportDetailOut)
    def get(self, request: Request, report_id: int) -> Response:
        report = selectors.reconciliation_report_get(report_id=report_id)
        return Response(serializers.ReconciliationReportDetailOut(report).data)


class ReconciliationItemResolveApi(APIView):
    permission_classes = [IsAuthenticated, allowed(human=access.can_resolve_reconciliation)]

    @extend_schema(request=serializers.ResolveIn, responses=serializers.ReconciliationItemOut)
    @idempotent(scope=IDEMPOTENCY_SCOPE)
    def post(self, request: Request, item_id: int) -> Response:
        data = serializers.ResolveIn(data=request.data)
        data.is_valid(raise_exception=True)
        item = services.reconciliation_item_resolve(
            actor=request_operator(request), item_id=item_id, note=data.validated_data["note"]
        )
        return Response(serializers.ReconciliationItemOut(item).data)
