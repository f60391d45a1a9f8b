"""An admin can reset a forgotten password, and still cannot take over an account alone.

The same four-eyes request as a two-factor reset (identity.services.credential_resets): one
admin asks (step-up, a reason), a second, independent admin approves (step-up) and alone sees
the one-time temporary password; the operator's sessions end, their second factor stays, and
they must choose their own password right after it. The actors who would try to cheat it: the
admin who asked (approving their own request, reading the password), an admin account the
requester made, an approver of refunds, and an admin combining a password reset with a
two-factor reset so that a password they know meets an account without a second factor."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice.errors import Conflict, Forbidden
from identity import services
from identity.models import (
    AuditEvent,
    CredentialKind,
    CredentialResetRequest,
    Operator,
    OperatorSession,
    Role,
)
from tests.conftest import PASSWORD, verified_client
from tests.identity.helpers import code_for, device_of, full_login, password_login

pytestmark = pytest.mark.django_db

REASON = {"password-reason": "forgot it; called her back on the desk number"}
OWN_PASSWORD = "violet tractor umbrella 42"


def _request(admin: Operator, target: Operator) -> CredentialResetRequest:
    response = verified_client(admin).post(f"/operators/{target.pk}/reset-password/", REASON)
    assert response.status_code == 302
    return CredentialResetRequest.objects.get(
        operator=target, kind=CredentialKind.PASSWORD, status="pending"
    )


def _approve(admin: Operator, reset: CredentialResetRequest) -> Any:
    return verified_client(admin).post(f"/operators/resets/{reset.pk}/approve/")


def test_asking_changes_nothing_and_the_asking_admin_cannot_approve(
    ada: Operator, alice: Operator
) -> None:
    alices = Client()
    full_login(alices, alice)
    reset = _request(ada, alice)
    assert alices.get("/security/").status_code == 200
    response = _approve(ada, reset)
    assert response.status_code == 302 and b"temporary-password" not in response.content
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD) and not alice.must_change_password
    reset.refresh_from_db()
    assert reset.status == "pending"
    page = verified_client(ada).get(f"/operators/{alice.pk}/")
    assert "asked for this reset" in page.context["password_reset"]["refusal"]
    assert b'data-testid="password-reset-approve"' not in page.content
    assert not AuditEvent.objects.filter(action="operator.password_reset").exists()


def test_a_second_admin_approves_and_alone_sees_the_temporary_password(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    alices = Client()
    full_login(alices, alice)
    reset = _request(ada, alice)
    adam = make_operator("adam", [Role.ADMIN])
    response = _approve(adam, reset)
    assert response.status_code == 200
    temporary = str(response.context["password"])
    assert temporary.encode() in response.content
    alice.refresh_from_db()
    assert alice.check_password(temporary) and alice.must_change_password
    # Whoever held Alice's browser is out; her second factor is untouched.
    assert alices.get("/security/").status_code == 302
    assert not OperatorSession.objects.filter(operator=alice).exists()
    assert TOTPDevice.objects.filter(user=alice).exists()
    event = AuditEvent.objects.get(action="operator.password_reset")
    assert event.actor_id == adam.pk and event.target_id == str(alice.pk)
    assert event.after["requested_by"] == "ada" and event.after["approved_by"] == "adam"
    assert event.after["sessions_revoked"] == 1
    # The password is in no audit event, and the requesting admin's pages never show it.
    every_event = json.dumps(list(AuditEvent.objects.values("before", "after")), default=str)
    assert temporary not in every_event
    for path in (f"/operators/{alice.pk}/", "/operators/"):
        assert temporary.encode() not in verified_client(ada).get(path).content
    # Approved once: the request cannot be replayed for a second password.
    with pytest.raises(Conflict):
        services.credential_reset_approve(actor=adam, reset=reset)


def test_the_temporary_password_needs_the_operators_own_code_and_then_a_new_password(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    reset = _request(ada, alice)
    temporary = str(_approve(make_operator("adam", [Role.ADMIN]), reset).context["password"])
    browser = Client()
    response = password_login(browser, "alice", temporary)
    # The password alone opens nothing: next comes Alice's own authenticator.
    assert response.status_code == 302 and response["Location"].startswith("/login/verify/")
    assert browser.get("/tickets/")["Location"].startswith("/login/verify/")
    TOTPDevice.objects.filter(user=alice).update(last_t=-1)
    browser.post("/login/verify/", {"code": code_for(device_of(alice))})
    assert browser.get("/tickets/")["Location"].startswith("/security/password/")
    browser.post(
        "/security/password/",
        {
            "old_password": temporary,
            "new_password": OWN_PASSWORD,
            "new_password_again": OWN_PASSWORD,
        },
    )
    alice.refresh_from_db()
    assert alice.check_password(OWN_PASSWORD) and not alice.must_change_password
    assert browser.get("/tickets/").status_code == 200


def test_an_admin_account_the_requester_created_or_promoted_cannot_approve(
    ada: Operator, alice: Operator, sam: Operator
) -> None:
    verified_client(ada).post(f"/operators/{sam.pk}/roles/", {"roles": ["supervisor", "admin"]})
    reset = _request(ada, alice)
    response = _approve(sam, reset)
    assert response.status_code == 302 and b"temporary-password" not in response.content
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    assert "not be independent" in services.approval_refusal(actor=sam, reset=reset)


def test_who_else_cannot_ask_or_approve(
    ada: Operator, alice: Operator, bob: Operator, make_operator: Any
) -> None:
    # An approver of refunds is no admin: 403 before any code is asked.
    assert (
        verified_client(bob).post(f"/operators/{alice.pk}/reset-password/", REASON).status_code
        == 403
    )
    reset = _request(ada, alice)
    assert _approve(bob, reset).status_code == 403
    # The operator being reset, were they an admin.
    adam = make_operator("adam", [Role.ADMIN])
    own = _request(ada, adam)
    with pytest.raises(Forbidden):
        services.credential_reset_approve(actor=adam, reset=own)
    # An admin cannot ask to reset their own (they change it on their Security page).
    with pytest.raises(Conflict):
        services.credential_reset_request(
            actor=ada, operator=ada, kind=CredentialKind.PASSWORD, reason="mine"
        )
    # Without a reason, nothing is asked.
    response = verified_client(ada).post(f"/operators/{bob.pk}/reset-password/", {})
    assert response.status_code == 302
    assert not CredentialResetRequest.objects.filter(operator=bob).exists()
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_asking_and_approving_need_a_fresh_code(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    stale = verified_client(ada, stepped_up=False)
    response = stale.post(f"/operators/{alice.pk}/reset-password/", REASON)
    assert response["Location"].startswith("/security/verify/")
    assert not CredentialResetRequest.objects.filter(operator=alice).exists()
    reset = _request(ada, alice)
    adam = make_operator("adam", [Role.ADMIN])
    response = verified_client(adam, stepped_up=False).post(
        f"/operators/resets/{reset.pk}/approve/"
    )
    assert response["Location"].startswith("/security/verify/")
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_the_temporary_password_is_shown_after_the_step_up_that_approval_asked_for(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    """The approval waits in the session during the challenge and is carried out after it:
    the page that answers the code is the one with the password."""
    reset = _request(ada, alice)
    adam = make_operator("adam", [Role.ADMIN])
    browser = verified_client(adam, stepped_up=False)
    browser.post(f"/operators/resets/{reset.pk}/approve/")
    TOTPDevice.objects.filter(user=adam).update(last_t=-1)
    response = browser.post("/security/verify/", {"code": code_for(device_of(adam))})
    assert response.status_code == 200
    alice.refresh_from_db()
    assert alice.check_password(str(response.context["password"]))


def test_a_password_reset_cannot_meet_an_account_without_its_second_factor(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    """Whoever holds a temporary password of an account with no authenticator enrols their
    own and is that operator. So neither order of the two resets gets there."""
    adam = make_operator("adam", [Role.ADMIN])
    # Two-factor first: approved, Alice has not enrolled again yet.
    totp = services.credential_reset_request(
        actor=ada, operator=alice, kind=CredentialKind.TOTP, reason="lost phone"
    )
    services.credential_reset_approve(actor=adam, reset=totp)
    with pytest.raises(Conflict, match="no two-factor setup"):
        services.credential_reset_request(
            actor=ada, operator=alice, kind=CredentialKind.PASSWORD, reason="forgot it too"
        )
    # A request made while she still had it cannot be approved once the app is gone.
    bob_admin = make_operator("bobby", [Role.ADMIN])
    TOTPDevice.objects.create(user=alice, name="default", confirmed=True)
    pending = services.credential_reset_request(
        actor=ada, operator=alice, kind=CredentialKind.PASSWORD, reason="forgot it"
    )
    TOTPDevice.objects.filter(user=alice).delete()
    with pytest.raises(Forbidden, match="no two-factor setup"):
        services.credential_reset_approve(actor=bob_admin, reset=pending)
    assert alice.check_password(PASSWORD)


def test_a_two_factor_reset_cannot_follow_a_password_reset_not_yet_replaced(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    adam = make_operator("adam", [Role.ADMIN])
    reset = _request(ada, alice)
    _approve(adam, reset)  # adam holds the temporary password
    alice.refresh_from_db()
    assert alice.must_change_password
    with pytest.raises(Conflict, match="temporary one"):
        services.credential_reset_request(
            actor=ada, operator=alice, kind=CredentialKind.TOTP, reason="lost phone"
        )
    page = verified_client(adam).get(f"/operators/{alice.pk}/")
    assert b"temporary: replaced at next login" in page.content
    assert TOTPDevice.objects.filter(user=alice).exists()


def test_one_password_and_one_two_factor_request_may_wait_side_by_side(
    ada: Operator, alice: Operator
) -> None:
    _request(ada, alice)
    services.credential_reset_request(
        actor=ada, operator=alice, kind=CredentialKind.TOTP, reason="lost phone"
    )
    with pytest.raises(Conflict, match="already waiting"):
        services.credential_reset_request(
            actor=ada, operator=alice, kind=CredentialKind.PASSWORD, reason="again"
        )
    page = verified_client(ada).get("/operators/")
    assert sorted(r.kind for r in page.context["resets"]) == ["password", "totp"]
    actions = sorted(AuditEvent.objects.values_list("action", flat=True))
    assert actions.count("operator.password_reset_request") == 1
    assert actions.count("operator.totp_reset_request") == 1
