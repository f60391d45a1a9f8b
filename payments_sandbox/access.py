"""Who may see or do what with payments and refunds. Views, the API and the services call
these; nothing else decides.

Service principals (the AI agent's runtime) carry no roles: the API admits them by token
scope (refunds:request, refunds:preview, refunds:read, payments:read), and here they may
request and preview refunds, and never approve, reject or cancel one.
"""

from __future__ import annotations

from typing import Any

from backoffice.errors import Forbidden

VIEW_PAYMENT = "payments_sandbox.view_payment"
VIEW_REFUND = "payments_sandbox.view_refund"
REQUEST_REFUND = "payments_sandbox.request_refund"
APPROVE_REFUND = "payments_sandbox.approve_refund"
CANCEL_REFUND = "payments_sandbox.cancel_refund"
REVERSE_PAYMENT = "payments_sandbox.reverse_payment"
VIEW_RECONCILIATION = "payments_sandbox.view_reconciliationreport"
RESOLVE_RECONCILIATION = "payments_sandbox.resolve_reconciliation"

SCOPES = {
    "refunds:request": "Request a sandbox refund (it then waits for a human approver).",
    "refunds:preview": "Validate and rehearse a refund without creating it.",
    "refunds:read": "Read refunds and their status.",
    "payments:read": "Read payments and their refundable balance.",
}


def is_service(user: Any) -> bool:
    return bool(getattr(user, "is_service_principal", False))


def _human_with(user: Any, perm: str) -> bool:
    return bool(user.is_authenticated and not is_service(user) and user.has_perm(perm))


def can_view_payments(user: Any) -> bool:
    return _human_with(user, VIEW_PAYMENT)


def can_view_refunds(user: Any) -> bool:
    return _human_with(user, VIEW_REFUND)


def can_request_refund(user: Any) -> bool:
    # A service principal reaches the service only through an API view that checked its
    # token's refunds:request scope.
    return bool(user.is_authenticated and (is_service(user) or user.has_perm(REQUEST_REFUND)))


def can_approve_refund(user: Any) -> bool:
    return _human_with(user, APPROVE_REFUND)


def can_cancel_refund(user: Any, refund: Any) -> bool:
    if not user.is_authenticated or is_service(user):
        return False
    return refund.requested_by_id == user.pk or user.has_perm(CANCEL_REFUND)


def can_reverse_payment(user: Any) -> bool:
    return _human_with(user, REVERSE_PAYMENT)


def can_view_reconciliation(user: Any) -> bool:
    return _human_with(user, VIEW_RECONCILIATION)


def can_resolve_reconciliation(user: Any) -> bool:
    return _human_with(user, RESOLVE_RECONCILIATION)


def require(allowed: bool, message: str) -> None:
    if not allowed:
        raise Forbidden(message)
