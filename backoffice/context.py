"""Navigation entries, each shown only to operators whose roles allow the page, and the page
each role lands on after login."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from identity import otp

# (label, url name, permissions of which any one opens the page; empty for every operator).
# The inbox is open to those who work tickets and to those who oversee them; it is not
# listed for approvers, auditors, admins or release managers, who have no inbox.
NAV: list[tuple[Any, str, tuple[str, ...]]] = [
    (_("Home"), "home", ()),
    (_("Inbox"), "tickets:inbox", ("tickets.work_tickets", "tickets.view_all_tickets")),
    (_("Queues"), "tickets:queue_list", ("tickets.manage_queues",)),
    (_("Approvals"), "payments_sandbox:approvals", ("payments_sandbox.view_refund",)),
    (_("Payments"), "payments_sandbox:payment_list", ("payments_sandbox.view_payment",)),
    (_("Go-live"), "evals:run_list", ("evals.view_evalrun",)),
    (_("Audit"), "identity:audit_list", ("identity.view_audit_trail",)),
    (_("Operators"), "identity:operator_list", ("identity.manage_operators",)),
    (_("My security"), "identity:security", ()),
]

# Where each role starts its day, first match wins: release managers on the go-live runs
# (they also work their findings in the inbox), agents and supervisors in the inbox,
# approvers in the approvals queue, auditors in the audit trail, admins on the operators
# page. Anyone else lands on the home page.
LANDING: list[tuple[str, tuple[str, ...]]] = [
    ("evals:run_list", ("evals.start_evalrun",)),
    ("tickets:inbox", ("tickets.work_tickets", "tickets.view_all_tickets")),
    ("payments_sandbox:approvals", ("payments_sandbox.approve_refund",)),
    ("identity:audit_list", ("identity.view_audit_trail",)),
    ("identity:operator_list", ("identity.manage_operators",)),
]


def _may_open(user: Any, perms: tuple[str, ...]) -> bool:
    return not perms or any(user.has_perm(perm) for perm in perms)


def landing_url(user: Any) -> str:
    """The first page of `user`'s role (see LANDING), else home."""
    if not getattr(user, "is_service_principal", False):
        for name, perms in LANDING:
            if _may_open(user, perms):
                try:
                    return reverse(name)
                except NoReverseMatch:
                    continue
    return reverse("home")


def navigation(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    if not otp.session_verified(user):
        return {"nav": []}
    entries = []
    for label, name, perms in NAV:
        if not _may_open(user, perms):
            continue
        try:
            url = reverse(name)
        except NoReverseMatch:
            continue  # that app's pages are not installed in this deployment
        entries.append({"label": label, "url": url, "active": request.path == url})
    return {"nav": entries}
