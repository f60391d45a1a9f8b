"""Each role against each protected identity action, through HTTP, in one table.

Y = allowed, . = denied (403 for operators; the service principal's token is not a UI
credential, so it is sent to the login page). Every client is verified and stepped up, so a
denial here is the role, not a missing second factor. Other apps keep their rows in their
own test files.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from identity import scopes
from identity.models import ApiToken, Operator, Role
from tests.conftest import make_service_token, verified_client

ROLES = [
    "agent",
    "approver",
    "supervisor",
    "admin",
    "auditor",
    "release_manager",
    "outsider",
    "service",
]

MATRIX = """
action               agent approver supervisor admin auditor release_manager outsider service
list_operators         .      .         .        Y      .          .            .       .
view_operator          .      .         .        Y      .          .            .       .
create_operator        .      .         .        Y      .          .            .       .
change_roles           .      .         .        Y      .          .            .       .
force_logout           .      .         .        Y      .          .            .       .
reset_2fa              .      .         .        Y      .          .            .       .
deactivate_operator    .      .         .        Y      .          .            .       .
list_tokens            .      .         .        Y      .          .            .       .
create_token           .      .         .        Y      .          .            .       .
revoke_token           .      .         .        Y      .          .            .       .
read_audit             .      .         .        .      Y          .            .       .
export_audit           .      .         .        .      Y          .            .       .
my_security            Y      Y         Y        Y      Y          Y            Y       .
"""


def _table() -> list[tuple[str, str, bool]]:
    lines = [line.split() for line in MATRIX.strip().splitlines()]
    header, rows = lines[0][1:], lines[1:]
    assert header == ROLES
    return [
        (row[0], role, mark == "Y")
        for row in rows
        for role, mark in zip(header, row[1:], strict=True)
    ]


PERSONA_ROLES = {
    "agent": [Role.AGENT],
    "approver": [Role.APPROVER],
    "supervisor": [Role.SUPERVISOR],
    "admin": [Role.ADMIN],
    "auditor": [Role.AUDITOR],
    "release_manager": [Role.RELEASE_MANAGER],
    "outsider": [],
}


@pytest.fixture
def client_for(make_operator: Callable[..., Operator]) -> Callable[[str], Client]:
    def build(role: str) -> Client:
        if role == "service":
            _, raw = make_service_token(["tests:matrix"], username="matrix-runtime")
            return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
        return verified_client(make_operator(f"persona-{role}", PERSONA_ROLES[role]))

    return build


@pytest.fixture
def target(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("target", [Role.AGENT])


def perform(action: str, client: Client, target: Operator) -> tuple[int, str]:
    scopes.register("tests:matrix", "Used by the role-matrix test")
    principal, _ = make_service_token(["tests:matrix"], username="victim-runtime")
    token = ApiToken.objects.filter(operator=principal).first()
    assert token is not None
    requests = {
        "list_operators": ("get", "/operators/", {}),
        "view_operator": ("get", f"/operators/{target.pk}/", {}),
        "create_operator": (
            "post",
            "/operators/new/",
            {"username": "newcomer", "kind": "human", "roles": ["agent"]},
        ),
        "change_roles": ("post", f"/operators/{target.pk}/roles/", {"roles": ["approver"]}),
        "force_logout": ("post", f"/operators/{target.pk}/force-logout/", {}),
        "reset_2fa": ("post", f"/operators/{target.pk}/reset-2fa/", {}),
        "deactivate_operator": ("post", f"/operators/{target.pk}/deactivate/", {}),
        "list_tokens": ("get", "/tokens/", {}),
        "create_token": (
            "post",
            "/tokens/new/",
            {"principal": principal.pk, "name": "ci", "scopes": ["tests:matrix"]},
        ),
        "revoke_token": ("post", f"/tokens/{token.pk}/revoke/", {}),
        "read_audit": ("get", "/audit/", {}),
        "export_audit": ("get", "/audit/export.csv", {}),
        "my_security": ("get", "/security/", {}),
    }
    method, url, data = requests[action]
    response = getattr(client, method)(url, data)
    return response.status_code, response.get("Location", "")


@pytest.mark.django_db
@pytest.mark.parametrize(("action", "role", "allowed"), _table())
def test_role_matrix(action: str, role: str, allowed: bool, client_for, target: Operator) -> None:
    status, location = perform(action, client_for(role), target)
    if allowed:
        assert status in (200, 302), (status, location)
        if status == 302:
            assert not location.startswith(("/login/", "/security/verify/")), location
    elif role == "service":
        assert status == 302 and location.startswith("/login/"), (status, location)
    else:
        assert status == 403, (status, location)


@pytest.mark.django_db
def test_an_operators_permissions_are_read_in_one_query_per_request(make_operator) -> None:
    approver = make_operator("pat", [Role.APPROVER])
    approver.user_permissions.add(Permission.objects.get(codename="merge_tickets"))
    fresh = Operator.objects.get(pk=approver.pk)  # a new request loads a new object
    with CaptureQueriesContext(connection) as queries:
        assert fresh.has_perm("payments_sandbox.approve_refund")  # by role
        assert fresh.has_perm("tickets.merge_tickets")  # granted to the operator directly
        assert not fresh.has_perm("tickets.assign_tickets")
        assert not fresh.has_perm("identity.manage_operators")
    assert len(queries.captured_queries) == 1
    approver.groups.clear()
    assert not Operator.objects.get(pk=approver.pk).has_perm("payments_sandbox.approve_refund")
