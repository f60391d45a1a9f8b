from __future__ import annotations

import csv
import io

import pytest
from django.http import StreamingHttpResponse
from django.test import Client

from identity import scopes
from identity.audit import audit_record
from identity.models import ApiToken, AuditEvent, Operator, OperatorKind
from identity.tokens import hash_token
from tests.conftest import token_client, verified_client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _scope() -> None:
    scopes.register("tests:read", "Read things in tests")


def test_admin_creates_an_operator_with_a_temporary_password_shown_once(ada: Operator) -> None:
    client = verified_client(ada)
    response = client.post(
        "/operators/new/",
        {"username": "nina", "display_name": "Nina", "kind": "human", "roles": ["agent"]},
    )
    assert response.status_code == 200
    password = response.context["password"]
    nina = Operator.objects.get(username="nina")
    assert nina.check_password(password)
    assert nina.role_names() == {"agent"}
    event = AuditEvent.objects.get(action="operator.create")
    assert password not in str(event.after)
    assert event.after == {"username": "nina", "kind": "human", "roles": ["agent"]}


def test_the_last_admin_cannot_drop_the_admin_role(ada: Operator) -> None:
    client = verified_client(ada)
    client.post(f"/operators/{ada.pk}/roles/", {"roles": ["auditor"]})
    assert ada.role_names() == {"admin"}
    assert not AuditEvent.objects.filter(action="operator.roles_set").exists()


def test_role_change_records_before_and_after(ada: Operator, alice: Operator) -> None:
    verified_client(ada).post(f"/operators/{alice.pk}/roles/", {"roles": ["agent", "supervisor"]})
    event = AuditEvent.objects.get(action="operator.roles_set")
    assert event.before == {"roles": ["agent"]}
    assert event.after == {"roles": ["agent", "supervisor"]}
    assert event.actor_id == ada.pk and event.target_id == str(alice.pk)


def test_deactivated_operator_cannot_log_in_and_loses_sessions(
    ada: Operator, alice: Operator
) -> None:
    alices = verified_client(alice)
    assert verified_client(ada).post(f"/operators/{alice.pk}/deactivate/").status_code == 302
    assert alices.get("/security/").status_code == 302
    response = Client().post(
        "/login/", {"username": "alice", "password": "correct horse battery staple"}
    )
    assert response.status_code == 200


def test_admin_creates_a_scoped_token_shown_once_and_stored_hashed(ada: Operator) -> None:
    principal = Operator.objects.create(username="runtime", kind=OperatorKind.SERVICE)
    client = verified_client(ada)
    response = client.post(
        "/tokens/new/", {"principal": principal.pk, "name": "ci", "scopes": ["tests:read"]}
    )
    assert response.status_code == 200
    raw = response.context["raw"]
    token = ApiToken.objects.get(operator=principal)
    assert token.token_hash == hash_token(raw) and raw not in token.token_hash
    assert raw not in client.get("/tokens/").content.decode()
    whoami = token_client(raw).get("/api/v1/identity/whoami/")
    assert whoami.status_code == 200
    assert whoami.json()["scopes"] == ["tests:read"]
    assert raw not in str(AuditEvent.objects.get(action="api_token.create").after)


def test_token_creation_requires_a_fresh_step_up(ada: Operator) -> None:
    principal = Operator.objects.create(username="runtime", kind=OperatorKind.SERVICE)
    client = verified_client(ada, stepped_up=False)
    response = client.post(
        "/tokens/new/", {"principal": principal.pk, "name": "ci", "scopes": ["tests:read"]}
    )
    assert response["Location"].startswith("/security/verify/")
    assert not ApiToken.objects.exists()


def test_a_revoked_token_stops_working(ada: Operator) -> None:
    principal = Operator.objects.create(username="runtime", kind=OperatorKind.SERVICE)
    from identity.services import api_token_create

    token, raw = api_token_create(actor=ada, principal=principal, name="ci", scopes=["tests:read"])
    assert token_client(raw).get("/api/v1/identity/whoami/").status_code == 200
    verified_client(ada).post(f"/tokens/{token.pk}/revoke/")
    assert token_client(raw).get("/api/v1/identity/whoami/").status_code == 401


def test_it_refuses_unknown_scopes(ada: Operator) -> None:
    from backoffice.errors import ValidationFailed
    from identity.services import api_token_create

    principal = Operator.objects.create(username="runtime", kind=OperatorKind.SERVICE)
    with pytest.raises(ValidationFailed):
        api_token_create(actor=ada, principal=principal, name="ci", scopes=["tests:typo"])


def test_auditor_filters_the_trail_and_exports_csv(
    audrey: Operator, alice: Operator, bob: Operator
) -> None:
    audit_record(actor=alice, action="ticket.assign", target_type="tickets.ticket", target_id=7)
    audit_record(
        actor=bob, action="refund.approve", target_type="payments_sandbox.refund", target_id=3
    )
    audit_record(
        actor=bob,
        action="refund.reject",
        target_type="payments_sandbox.refund",
        target_id=4,
        after={"reason": '=HYPERLINK("x")'},
    )
    client = verified_client(audrey)
    page = client.get("/audit/", {"actor": "bob", "action": "refund."})
    assert [e.action for e in page.context["page"]] == ["refund.reject", "refund.approve"]
    page = client.get("/audit/", {"target_type": "tickets.ticket", "target_id": "7"})
    assert [e.action for e in page.context["page"]] == ["ticket.assign"]
    export = client.get("/audit/export.csv", {"actor": "bob"})
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    assert isinstance(export, StreamingHttpResponse)
    rows = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert rows[0][:3] == ["seq", "occurred_at", "actor_type"]
    assert [r[5] for r in rows[1:]] == ["refund.reject", "refund.approve"]
    assert rows[1][9].startswith('{"reason"')


def test_audit_time_range_filter(audrey: Operator, alice: Operator) -> None:
    event = audit_record(actor=alice, action="ticket.assign")
    client = verified_client(audrey)
    since = event.occurred_at.strftime("%Y-%m-%dT%H:%M")
    assert (
        len(client.get("/audit/", {"since": since, "action": "ticket.assign"}).context["page"]) == 1
    )
    assert (
        len(client.get("/audit/", {"until": since, "action": "ticket.assign"}).context["page"]) == 0
    )


def test_home_shows_identity_panels_by_role(
    ada: Operator, audrey: Operator, alice: Operator
) -> None:
    def titles(operator: Operator) -> set[str]:
        return {p.title for p in verified_client(operator).get("/").context["panels"]}

    assert {"My security", "Operators"} <= titles(ada)
    assert "Audit trail" not in titles(ada)
    assert {"My security", "Audit trail"} <= titles(audrey)
    assert not {"Operators", "Audit trail"} & titles(alice)
