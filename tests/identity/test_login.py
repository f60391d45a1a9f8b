from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.models import AuditEvent, Operator, OperatorSession
from identity.services import GENERIC_LOGIN_ERROR
from tests.conftest import PASSWORD
from tests.identity.helpers import code_for, device_of, full_login, password_login

pytestmark = pytest.mark.django_db


def test_it_logs_in_with_password_then_totp_and_reaches_the_inbox_of_an_agent(
    alice: Operator,
) -> None:
    client = Client()
    response = password_login(client, "alice")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/verify/")
    # Password alone does not open the app.
    assert client.get("/").status_code == 302
    response = client.post("/login/verify/", {"code": code_for(device_of(alice))})
    assert response.status_code == 302
    assert response["Location"] == "/tickets/"  # no page asked for: the agent's own start
    home = client.get("/")
    assert home.status_code == 200
    assert b"Good to see you" in home.content
    assert AuditEvent.objects.filter(action="login.success", actor_id=alice.pk).count() == 1
    assert OperatorSession.objects.filter(operator=alice).count() == 1


def test_it_refuses_unknown_user_wrong_password_and_locked_account_with_the_same_answer(
    alice: Operator, settings
) -> None:
    settings.LOGIN_MAX_FAILURES = 2
    unknown = password_login(Client(), "nobody", "whatever-password")
    wrong = password_login(Client(), "alice", "wrong-password")
    password_login(Client(), "alice", "wrong-password")  # locks alice
    locked = password_login(Client(), "alice")  # right password, locked account
    bodies = {r.status_code for r in (unknown, wrong, locked)}
    assert bodies == {200}
    for response in (unknown, wrong, locked):
        assert GENERIC_LOGIN_ERROR.encode() in response.content
        assert "_auth_user_id" not in response.wsgi_request.session
    actions = list(AuditEvent.objects.values_list("action", flat=True))
    assert actions == ["login.failure", "login.failure", "login.lockout", "login.failure"]


def test_it_keeps_the_next_url_only_when_it_is_on_this_site(alice: Operator) -> None:
    client = Client()
    response = client.post(
        "/login/?next=https://evil.example/",
        {"username": "alice", "password": "correct horse battery staple"},
    )
    assert "evil.example" not in response["Location"]
    response = client.post(
        "/login/verify/?next=https://evil.example/", {"code": code_for(device_of(alice))}
    )
    assert response["Location"] == "/tickets/"


def test_it_refuses_a_wrong_otp_code_and_records_it(alice: Operator) -> None:
    client = Client()
    password_login(client, "alice")
    good = code_for(device_of(alice))
    bad = "000000" if good != "000000" else "111111"
    response = client.post("/login/verify/", {"code": bad})
    assert response.status_code == 200
    assert b"not valid" in response.content
    assert client.get("/").status_code == 302
    assert AuditEvent.objects.filter(action="otp.failure", actor_id=alice.pk).exists()


def test_a_backup_code_works_exactly_once(alice: Operator) -> None:
    from identity.services.second_factor import _replace_backup_codes

    codes = _replace_backup_codes(alice)
    first = Client()
    password_login(first, "alice")
    assert first.post("/login/verify/", {"code": codes[0]}).status_code == 302
    assert first.get("/").status_code == 200
    second = Client()
    password_login(second, "alice")
    response = second.post("/login/verify/", {"code": codes[0]})
    assert response.status_code == 200
    assert second.get("/").status_code == 302
    assert StaticToken.objects.filter(device__user=alice).count() == 9
    used = AuditEvent.objects.get(action="otp.backup_code_use")
    assert used.after == {"purpose": "login", "backup_codes_left": 9}


def test_logout_ends_the_session_and_is_audited(alice: Operator) -> None:
    client = Client()
    full_login(client, alice)
    assert client.get("/").status_code == 200
    assert client.get("/logout/").status_code == 405
    assert client.post("/logout/").status_code == 302
    assert client.get("/").status_code == 302
    assert not OperatorSession.objects.filter(operator=alice).exists()
    assert AuditEvent.objects.filter(action="logout", actor_id=alice.pk).exists()


def test_first_login_enrols_an_authenticator_and_shows_backup_codes_once(
    make_operator,
) -> None:
    newbie = make_operator("newbie", totp=False)
    client = Client()
    response = password_login(client, "newbie")
    response = client.get(response["Location"])
    assert response.status_code == 302
    assert response["Location"].startswith("/login/enroll/")
    page = client.get("/login/enroll/")
    assert page.status_code == 200
    assert b"<svg" in page.content
    assert client.get("/").status_code == 302  # not verified yet
    device = TOTPDevice.objects.get(user=newbie, confirmed=False)
    assert device.key and page.context["secret"]
    response = client.post("/login/enroll/", {"code": code_for(device)})
    assert response.status_code == 200
    codes = response.context["codes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    device.refresh_from_db()
    assert device.confirmed
    assert client.get("/").status_code == 200
    # Once enrolled, the enrolment page is closed: a stolen password cannot add a phone.
    again = Client()
    password_login(again, "newbie")
    assert again.get("/login/enroll/")["Location"].startswith("/login/verify/")
    assert AuditEvent.objects.filter(action="operator.totp_enroll", actor_id=newbie.pk).count() == 1


def test_healthz_is_public_and_pings_the_database(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.parametrize(
    ("roles", "landing"),
    [
        (["agent"], "/tickets/"),
        (["supervisor"], "/tickets/"),
        (["approver"], "/payments/approvals/"),
        (["auditor"], "/audit/"),
        (["admin"], "/operators/"),
        (["release_manager"], "/evals/"),
        ([], "/"),
    ],
)
def test_each_role_lands_on_its_own_page_unless_it_asked_for_one(
    make_operator: Any, roles: list[str], landing: str
) -> None:
    operator = make_operator("pat", roles)
    client = Client()
    password_login(client, "pat")
    response = client.post("/login/verify/", {"code": code_for(device_of(operator))})
    assert response["Location"] == landing
    # A page asked for before login wins over the role's start page.
    client = Client()
    client.post("/login/?next=/security/", {"username": "pat", "password": PASSWORD})
    TOTPDevice.objects.filter(user=operator).update(last_t=-1)  # the next 30 s period
    response = client.post(
        "/login/verify/?next=/security/", {"code": code_for(device_of(operator))}
    )
    assert response["Location"] == "/security/"
