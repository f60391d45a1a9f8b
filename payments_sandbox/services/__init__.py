"""Payment writes. `grep refund_` finds every refund action."""

from payments_sandbox.services.execution import (
    refund_execute,
    refund_mark_processing,
    refund_recover_stuck,
    refund_settle,
)
from payments_sandbox.services.payments import payment_capture, payment_reverse
from payments_sandbox.services.reconciliation import reconcile_run, reconciliation_item_resolve
from payments_sandbox.services.refunds import (
    RefundPreview,
    refund_approve,
    refund_cancel,
    refund_preview,
    refund_reject,
    refund_request,
)

__all__ = [
    "RefundPreview",
    "payment_capture",
    "payment_reverse",
    "reconcile_run",
    "reconciliation_item_resolve",
    "refund_approve",
    "refund_cancel",
    "refund_execute",
    "refund_mark_processing",
    "refund_preview",
    "refund_recover_stuck",
    "refund_reject",
    "refund_request",
    "refund_settle",
]
