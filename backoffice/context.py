"""Navigation entries, each shown only to operators whose roles allow the page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

from identity import otp

# (label, url name, permission required or None for any verified operator)
NAV: list[tuple[str, str, str | None]] = [
    ("Home", "home", None),
    ("Inbox", "tickets:inbox", None),
    ("Queues", "tickets:queue_list", "tickets.manage_queues"),
    ("Approvals", "payments_sandbox:approvals", "payments_sandbox.view_refund"),
    ("Payments", "payments_sandbox:payment_list", "payments_sandbox.view_payment"),
    ("Go-live", "evals:run_list", "evals.view_evalrun"),
    ("Audit", "identity:audit_list", "identity.view_audit_trail"),
    ("Operators", "identity:operator_list", "identity.manage_operators"),
    ("My security", "identity:security", None),
]


def navigation(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    if not otp.session_verified(user):
        return {"nav": []}
    entries = []
    for label, name, perm in NAV:
        if perm and not user.has_perm(perm):
            continue
        try:
            url = reverse(name)
        except NoReverseMatch:
            continue  # that app's pages are not installed in this deployment
        entries.append({"label": label, "url": url, "active": request.path == url})
    return {"nav": entries}
