"""Navigation entries, each shown only to operators whose roles allow the page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from identity import otp

# (label, url name, permission required or None for any verified operator)
NAV: list[tuple[Promise, str, str | None]] = [
    (gettext_lazy("Home"), "home", None),
    (gettext_lazy("Inbox"), "tickets:inbox", None),
    (gettext_lazy("Queues"), "tickets:queue_list", "tickets.manage_queues"),
    (gettext_lazy("Approvals"), "payments_sandbox:approvals", "payments_sandbox.view_refund"),
    (gettext_lazy("Payments"), "payments_sandbox:payment_list", "payments_sandbox.view_payment"),
    (gettext_lazy("Go-live"), "evals:run_list", "evals.view_evalrun"),
    (gettext_lazy("Audit"), "identity:audit_list", "identity.view_audit_trail"),
    (gettext_lazy("Operators"), "identity:operator_list", "identity.manage_operators"),
    (gettext_lazy("My security"), "identity:security", None),
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
