from django.urls import path

from payments_sandbox import views

app_name = "payments_sandbox"

urlpatterns = [
    path("", views.payment_list, name="payment_list"),
    path("approvals/", views.approvals, name="approvals"),
    path("<int:payment_id>/", views.payment_detail, name="payment_detail"),
    path("<int:payment_id>/refunds/", views.refund_request, name="refund_request"),
    path("refunds/", views.refund_list, name="refund_list"),
    path("refunds/<int:refund_id>/", views.refund_detail, name="refund_detail"),
    path("refunds/<int:refund_id>/approve/", views.refund_approve, name="refund_approve"),
    path("refunds/<int:refund_id>/reject/", views.refund_reject, name="refund_reject"),
    path("refunds/<int:refund_id>/cancel/", views.refund_cancel, name="refund_cancel"),
    path("reconciliation/", views.reconciliation, name="reconciliation"),
    path("reconciliation/run/", views.reconciliation_run, name="reconciliation_run"),
    path(
        "reconciliation/items/<int:item_id>/resolve/",
        views.reconciliation_resolve,
        name="reconciliation_resolve",
    ),
]
