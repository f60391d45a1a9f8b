from django.urls import path

from payments_sandbox import api

urlpatterns = [
    path("payments", api.PaymentListApi.as_view(), name="payments-list"),
    path("payments/<int:payment_id>", api.PaymentDetailApi.as_view(), name="payments-detail"),
    path("refunds", api.RefundListApi.as_view(), name="refunds-list"),
    path("refunds/request", api.RefundRequestApi.as_view(), name="refunds-request"),
    path("refunds/preview", api.RefundPreviewApi.as_view(), name="refunds-preview"),
    path("refunds/<int:refund_id>", api.RefundDetailApi.as_view(), name="refunds-detail"),
    path("refunds/<int:refund_id>/approve", api.RefundApproveApi.as_view(), name="refunds-approve"),
    path("refunds/<int:refund_id>/reject", api.RefundRejectApi.as_view(), name="refunds-reject"),
    path("refunds/<int:refund_id>/cancel", api.RefundCancelApi.as_view(), name="refunds-cancel"),
    path(
        "reconciliation/reports",
        api.ReconciliationReportListApi.as_view(),
        name="reconciliation-list",
    ),
    path("reconciliation/run", api.ReconciliationRunApi.as_view(), name="reconciliation-run"),
    path(
        "reconciliation/reports/<int:report_id>",
        api.ReconciliationReportDetailApi.as_view(),
        name="reconciliation-detail",
    ),
    path(
        "reconciliation/items/<int:item_id>/resolve",
        api.ReconciliationItemResolveApi.as_view(),
        name="reconciliation-resolve",
    ),
]
