"""Roles are auth Groups; this table is the single statement of what each role may do.

Each app declares its permissions in its models' Meta and adds them here. `sync_roles()` runs
after every migrate, so the groups in the database always match this table (permissions
removed here are removed from the group too).
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.db import transaction

from identity.models import Operator, Role

ROLE_PERMISSIONS: dict[str, list[str]] = {
    Role.AGENT: ["tickets.work_tickets"],
    Role.APPROVER: [],
    Role.SUPERVISOR: [
        "tickets.work_tickets",
        "tickets.view_all_tickets",
        "tickets.assign_tickets",
        "tickets.merge_tickets",
        "tickets.manage_queues",
    ],
    # Admins set up queues (members, capacity, SLA targets) without working tickets.
    Role.ADMIN: ["identity.manage_operators", "tickets.manage_queues"],
    Role.AUDITOR: ["identity.view_audit_trail"],
    Role.RELEASE_MANAGER: [],
}

# Payments and refunds (payments_sandbox.access states the rules; the AI agent's service
# principal gets no role, only token scopes refunds:request / refunds:preview / *:read).
_PAYMENTS_READ = [
    "payments_sandbox.view_payment",
    "payments_sandbox.view_refund",
]
_RECONCILIATION_READ = ["payments_sandbox.view_reconciliationreport"]
ROLE_PERMISSIONS[Role.AGENT] += [*_PAYMENTS_READ, "payments_sandbox.request_refund"]
ROLE_PERMISSIONS[Role.APPROVER] += [
    *_PAYMENTS_READ,
    *_RECONCILIATION_READ,
    "payments_sandbox.approve_refund",
]
ROLE_PERMISSIONS[Role.SUPERVISOR] += [
    *_PAYMENTS_READ,
    *_RECONCILIATION_READ,
    "payments_sandbox.request_refund",
    "payments_sandbox.cancel_refund",
    "payments_sandbox.reverse_payment",
    "payments_sandbox.resolve_reconciliation",
]
ROLE_PERMISSIONS[Role.AUDITOR] += [*_PAYMENTS_READ, *_RECONCILIATION_READ]

# Go-live runs (evals.access states the rules): release managers start runs, see reports and
# turn failing trials into tickets; auditors read the reports. CI service principals get no
# role, only the token scopes evals:run / evals:read.
ROLE_PERMISSIONS[Role.RELEASE_MANAGER] += [
    # They staff the go-live findings queue: the tickets their failing trials become are
    # theirs to work (internal notes; the customer is simulated).
    "tickets.work_tickets",
    "evals.view_evalrun",
    "evals.start_evalrun",
    "evals.ticket_trialresult",
]
ROLE_PERMISSIONS[Role.AUDITOR] += ["evals.view_evalrun"]


def _permission(label: str) -> Permission:
    app_label, codename = label.split(".", 1)
    try:
        return Permission.objects.get(content_type__app_label=app_label, codename=codename)
    except Permission.DoesNotExist as exc:
        raise LookupError(f"Role table names an unknown permission {label!r}.") from exc


@transaction.atomic
def sync_roles() -> None:
    for role, labels in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=str(role))
        group.permissions.set([_permission(label) for label in labels])


def grant(operator: Operator, role: str) -> None:
    """Low-level membership change for fixtures and seeding; operator-facing role changes go
    through identity.services.operator_roles_set, which audits and requires step-up."""
    if role not in Role.values:
        raise ValueError(f"Unknown role {role!r}.")
    operator.groups.add(Group.objects.get(name=role))
    operator.__dict__.pop("_role_names", None)
