"""Finding 6 (Medium): one admin could take over any account and so defeat four eyes. The
temporary password an admin saw at creation was permanent, and the admin alone could reset
another operator's two-factor setup. Now operators set their own password at first login
(nothing else opens until they do), change it with the old one and a current code, and a
two-factor reset needs a second, independent admin's approval."""

from __future__ import annotations

import base64
import datetime as dt
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice import settings as production_settings
from backoffice.errors import Conflict, Forbidden
from identity import services
from identity.models import AuditEvent, CredentialResetRequest, Operator, OperatorSession, Role
from tests.conftest import PASSWORD, verified_client
from tests.identity.helpers import code_for, device_of, full_login, password_login

pytestmark = pytest.mark.django_db

OWN_PASSWORD = "violet tractor umbrella 42"


def _create_by_admin(admin: Operator, username: str, roles: list[str]) -> str:
    """The admin's page creates the account; returns the temporary password it showed."""
    response = verified_client(admin).post(
        "/operators/new/",
        {"username": username, "display_name": username.title(), "kind": "human", "roles": roles},
    )
    assert response.status_code == 200
    return str(response.context["password"])


def _first_login(username: str, password: str) -> Client:
    """Password, then enrolment of a new authenticator: a verified session."""
    client = Client()
    assert password_login(client, username, password).status_code == 302
    page = client.get("/login/enroll/")
    match = re.search(rb'data-testid="totp-secret">([A-Z2-7]+)<', page.content)
    assert match is not None
    secret = match.group(1).decode()
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    response = client.post("/login/enroll/", {"code": f"{totp(key):06d}"})
    assert b'data-testid="backup-codes"' in response.content
    return client


# First login: the temporary password opens only the form to replace it.


def test_a_new_operator_must_replace_the_temporary_password_before_anything_else(
    ada: Operator,
) -> None:
    temporary = _create_by_admin(ada, "nina", ["agent"])
    nina = _first_login("nina", temporary)
    for path in ["/", "/tickets/", "/security/", "/refunds/", "/operators/", "/audit/"]:
        response = nina.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith("/security/password/"), (path, response)
    page = nina.get("/security/password/")
    assert page.status_code == 200 and page.context["forced"]
    assert "code" not in page.context["form"].fields
    response = nina.post(
        "/security/password/",
        {
            "old_password": temporary,
            "new_password": OWN_PASSWORD,
            "new_password_again": OWN_PASSWORD,
            "next": "/tickets/",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/tickets/"
    assert nina.get("/tickets/").status_code == 200
    operator = Operator.objects.get(username="nina")
    assert not operator.must_change_password
    assert operator.check_password(OWN_PASSWORD) and not operator.check_password(temporary)
    event = AuditEvent.objects.get(action="operator.password_change")
    assert event.actor_id == operator.pk and event.after["forced"] is True
    assert OWN_PASSWORD not in str(event.after) and temporary not in str(event.after)
    # What the admin saw no longer opens the account.
    assert password_login(Client(), "nina", temporary).status_code == 200


def test_the_api_refuses_a_session_that_still_has_the_temporary_password(
    ada: Operator,
) -> None:
    temporary = _create_by_admin(ada, "nina", ["agent"])
    nina = _first_login("nina", temporary)
    for path in ["/api/v1/identity/whoami/", "/api/v1/tickets"]:
        response = nina.get(path)
        assert response.status_code == 403, path
        assert response.json()["error"]["code"] == "password_change_required"
    nina.post(
        "/security/password/",
        {
            "old_password": temporary,
            "new_password": OWN_PASSWORD,
            "new_password_again": OWN_PASSWORD,
        },
    )
    assert nina.get("/api/v1/identity/whoami/").status_code == 200


def test_the_forced_change_refuses_weak_or_mistyped_passwords_and_keeps_the_old_one(
    ada: Operator, settings: Any
) -> None:
    # The test settings turn the validators off for speed; this test needs the real ones.
    settings.AUTH_PASSWORD_VALIDATORS = production_settings.AUTH_PASSWORD_VALIDATORS
    temporary = _create_by_admin(ada, "nina", ["agent"])
    nina = _first_login("nina", temporary)
    for new, again, field in [
        ("short1", "short1", "new_password"),
        ("password1234", "password1234", "new_password"),
        ("12345678901234", "12345678901234", "new_password"),
        (temporary, temporary, "new_password"),
        (OWN_PASSWORD, OWN_PASSWORD + "x", "new_password_again"),
    ]:
        response = nina.post(
            "/security/password/",
            {"old_password": temporary, "new_password": new, "new_password_again": again},
        )
        assert response.status_code == 200, new
        assert response.context["form"].errors.get(field), (new, response.context["form"].errors)
    operator = Operator.objects.get(username="nina")
    assert operator.must_change_password and operator.check_password(temporary)
    response = nina.post(
        "/security/password/",
        {
            "old_password": "not it",
            "new_password": OWN_PASSWORD,
            "new_password_again": OWN_PASSWORD,
        },
    )
    assert response.context["form"].errors.get("old_password")
    assert Operator.objects.get(username="nina").must_change_password


def test_a_stale_session_must_give_a_code_again_before_setting_the_password(
    ada: Operator,
) -> None:
    """A browser left at the form overnight: the code given at login no longer counts."""
    temporary = _create_by_admin(ada, "nina", ["agent"])
    nina = _first_login("nina", temporary)
    session = nina.session
    session["identity.otp_verified_at"] = 0
    session.save()
    response = nina.post(
        "/security/password/",
        {
            "old_password": temporary,
            "new_password": OWN_PASSWORD,
            "new_password_again": OWN_PASSWORD,
        },
    )
    assert response.status_code == 302 and response["Location"].startswith("/security/verify/")
    assert Operator.objects.get(username="nina").must_change_password


def test_accounts_seeded_with_a_chosen_password_are_not_forced(ada: Operator) -> None:
    operator, shown = services.operator_create(
        actor=None, username="demo-agent", roles=["agent"], password=PASSWORD
    )
    assert shown is None and not operator.must_change_password


# Self-service change: old password, a current code, validators, other sessions end.


def _change(client: Client, old: str, new: str, code: str) -> Any:
    return client.post(
        "/security/password/",
        {"old_password": old, "new_password": new, "new_password_again": new, "code": code},
    )


def test_changing_the_password_keeps_this_session_and_ends_the_others(alice: Operator) -> None:
    here, elsewhere = Client(HTTP_USER_AGENT="here"), Client(HTTP_USER_AGENT="elsewhere")
    full_login(here, alice)
    full_login(elsewhere, alice)
    TOTPDevice.objects.filter(pk=device_of(alice).pk).update(last_t=-1)
    response = _change(here, PASSWORD, OWN_PASSWORD, code_for(device_of(alice)))
    assert response.status_code == 302 and response["Location"] == "/security/"
    assert here.get("/security/").status_code == 200
    assert elsewhere.get("/security/").status_code == 302
    assert [s.user_agent for s in OperatorSession.objects.filter(operator=alice)] == ["here"]
    alice.refresh_from_db()
    assert alice.check_password(OWN_PASSWORD)
    event = AuditEvent.objects.get(action="operator.password_change")
    assert event.after == {"forced": False, "other_sessions_ended": 1}


def test_the_change_needs_the_current_password_and_a_current_code(alice: Operator) -> None:
    client = Client()
    full_login(client, alice)
    TOTPDevice.objects.filter(pk=device_of(alice).pk).update(last_t=-1)
    right = code_for(device_of(alice))
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    response = _change(client, "not my password", OWN_PASSWORD, right)
    assert response.context["form"].errors.get("old_password")
    response = _change(client, PASSWORD, OWN_PASSWORD, wrong)
    assert response.context["form"].errors.get("code")
    response = client.post(
        "/security/password/",
        {
            "old_password": PASSWORD,
            "new_password": OWN_PASSWORD,
            "new_password_again": OWN_PASSWORD,
        },
    )
    assert response.context["form"].errors.get("code")
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    reasons = [
        e.after["reason"]
        for e in AuditEvent.objects.filter(action="operator.password_change_failure")
    ]
    assert reasons == ["bad_password", "bad_code"]


def test_the_change_form_is_no_way_round_the_login_lockout(alice: Operator) -> None:
    """Someone at an unlocked, signed-in browser guessing the password: five wrong guesses
    lock the account, and the right password then changes nothing either."""
    client = Client()
    full_login(client, alice)
    TOTPDevice.objects.filter(pk=device_of(alice).pk).update(last_t=-1)
    for guess in range(5):
        _change(client, f"guess {guess}", OWN_PASSWORD, "000000")
    response = _change(client, PASSWORD, OWN_PASSWORD, code_for(device_of(alice)))
    assert "Too many attempts" in str(response.context["form"].non_field_errors())
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


# Two-factor resets: four eyes.


def _request_reset(admin: Operator, target: Operator) -> CredentialResetRequest:
    response = verified_client(admin).post(
        f"/operators/{target.pk}/reset-2fa/", {"totp-reason": "lost phone; called them back"}
    )
    assert response.status_code == 302
    return CredentialResetRequest.objects.get(operator=target, status="pending")


def _approve(admin: Operator, reset: CredentialResetRequest) -> Any:
    return verified_client(admin).post(f"/operators/resets/{reset.pk}/approve/")


def test_an_admin_cannot_approve_their_own_2fa_reset(ada: Operator, alice: Operator) -> None:
    reset = _request_reset(ada, alice)
    assert TOTPDevice.objects.filter(user=alice).exists()
    _approve(ada, reset)
    assert TOTPDevice.objects.filter(user=alice).exists()
    reset.refresh_from_db()
    assert reset.status == "pending"
    page = verified_client(ada).get(f"/operators/{alice.pk}/")
    assert "asked for this reset" in page.context["totp_reset"]["refusal"]
    assert b"Approve the reset" not in page.content
    assert not AuditEvent.objects.filter(action="operator.totp_reset").exists()


def test_a_second_independent_admin_approves_and_the_reset_happens(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    alices = verified_client(alice)
    reset = _request_reset(ada, alice)
    adam = make_operator("adam", [Role.ADMIN])
    assert _approve(adam, reset).status_code == 302
    assert not TOTPDevice.objects.filter(user=alice).exists()
    assert alices.get("/security/").status_code == 302
    event = AuditEvent.objects.get(action="operator.totp_reset")
    assert event.actor_id == adam.pk
    assert event.after["requested_by"] == "ada" and event.after["approved_by"] == "adam"
    # Approved once: the same request cannot be replayed.
    with pytest.raises(Conflict):
        services.credential_reset_approve(actor=adam, reset=reset)


def test_an_admin_account_the_requester_created_cannot_approve(
    ada: Operator, alice: Operator
) -> None:
    """The first admin creates a second admin account, sets its password and enrols its
    authenticator (they saw the temporary password): its approval is the first admin's own."""
    temporary = _create_by_admin(ada, "sock", [Role.ADMIN])
    sock_browser = _first_login("sock", temporary)
    sock_browser.post(
        "/security/password/",
        {
            "old_password": temporary,
            "new_password": OWN_PASSWORD,
            "new_password_again": OWN_PASSWORD,
        },
    )
    reset = _request_reset(ada, alice)
    assert sock_browser.post(f"/operators/resets/{reset.pk}/approve/").status_code == 302
    assert TOTPDevice.objects.filter(user=alice).exists()
    sock = Operator.objects.get(username="sock")
    assert "not be independent" in services.approval_refusal(actor=sock, reset=reset)


def test_an_admin_whose_roles_the_requester_set_cannot_approve(
    ada: Operator, alice: Operator, sam: Operator
) -> None:
    verified_client(ada).post(f"/operators/{sam.pk}/roles/", {"roles": ["supervisor", "admin"]})
    sam.__dict__.pop("_role_names", None)
    assert sam.has_role(Role.ADMIN)
    reset = _request_reset(ada, alice)
    _approve(sam, reset)
    assert TOTPDevice.objects.filter(user=alice).exists()


def test_who_else_cannot_approve(
    ada: Operator, alice: Operator, bob: Operator, make_operator: Any
) -> None:
    adam = make_operator("adam", [Role.ADMIN])
    reset = _request_reset(ada, adam)
    # The operator being reset, though an admin.
    _approve(adam, reset)
    # A non-admin (an approver of refunds) gets a 403 before any code is asked.
    assert _approve(bob, reset).status_code == 403
    # An admin without a second factor of their own (the service checks it too).
    bare = make_operator("bare", [Role.ADMIN], totp=False)
    with pytest.raises(Forbidden):
        services.credential_reset_approve(actor=bare, reset=reset)
    # A deactivated admin.
    gone = make_operator("gone", [Role.ADMIN])
    Operator.objects.filter(pk=gone.pk).update(is_active=False)
    gone.refresh_from_db()
    with pytest.raises(Forbidden):
        services.credential_reset_approve(actor=gone, reset=reset)
    assert TOTPDevice.objects.filter(user=adam).exists()


def test_a_request_lapses_and_can_be_withdrawn(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    adam = make_operator("adam", [Role.ADMIN])
    reset = _request_reset(ada, alice)
    CredentialResetRequest.objects.filter(pk=reset.pk).update(
        created_at=timezone.now() - dt.timedelta(hours=25)
    )
    _approve(adam, reset)
    assert TOTPDevice.objects.filter(user=alice).exists()
    # A lapsed request no longer blocks a new one, which the requester may withdraw.
    again = _request_reset(ada, alice)
    assert again.pk != reset.pk
    verified_client(ada).post(f"/operators/resets/{again.pk}/cancel/")
    again.refresh_from_db()
    assert again.status == "cancelled"
    _approve(adam, again)
    assert TOTPDevice.objects.filter(user=alice).exists()
    actions = list(
        AuditEvent.objects.filter(action__startswith="operator.totp_reset").values_list(
            "action", flat=True
        )
    )
    assert actions == [
        "operator.totp_reset_request",
        "operator.totp_reset_request",
        "operator.totp_reset_cancel",
    ]


def test_the_operators_page_lists_resets_waiting_for_a_second_admin(
    ada: Operator, alice: Operator
) -> None:
    _request_reset(ada, alice)
    page = verified_client(ada).get("/operators/")
    assert [r.operator.username for r in page.context["resets"]] == ["alice"]
    assert b'data-testid="resets-waiting"' in page.content
