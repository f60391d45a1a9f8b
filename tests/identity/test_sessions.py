from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from identity.models import AuditEvent, CredentialResetRequest, Operator, OperatorSession
from tests.conftest import verified_client
from tests.identity.helpers import full_login, password_login

pytestmark = pytest.mark.django_db


def test_a_revoked_session_is_logged_out_on_its_next_request(alice: Operator) -> None:
    laptop, phone = Client(HTTP_USER_AGENT="laptop"), Client(HTTP_USER_AGENT="phone")
    full_login(laptop, alice)
    full_login(phone, alice)
    page = laptop.get("/security/")
    assert page.status_code == 200
    assert len(page.context["sessions"]) == 2
    phone_session = OperatorSession.objects.get(operator=alice, user_agent="phone")
    response = laptop.post(f"/security/sessions/{phone_session.pk}/revoke/")
    assert response.status_code == 302
    assert phone.get("/security/").status_code == 302
    assert phone.get("/security/")["Location"].startswith("/login/")
    assert laptop.get("/security/").status_code == 200
    event = AuditEvent.objects.get(action="session.revoke")
    assert event.actor_id == alice.pk and event.after["user_agent"] == "phone"


def test_an_operator_cannot_revoke_someone_elses_session(alice: Operator, bob: Operator) -> None:
    bobs = Client()
    full_login(bobs, bob)
    session = OperatorSession.objects.get(operator=bob)
    response = verified_client(alice).post(f"/security/sessions/{session.pk}/revoke/")
    assert response.status_code == 404
    assert bobs.get("/security/").status_code == 200


def test_admin_force_logout_ends_every_session_of_the_operator(
    ada: Operator, alice: Operator
) -> None:
    one, two = Client(), Client()
    full_login(one, alice)
    full_login(two, alice)
    response = verified_client(ada).post(f"/operators/{alice.pk}/force-logout/")
    assert response.status_code == 302
    assert one.get("/security/").status_code == 302
    assert two.get("/security/").status_code == 302
    assert not OperatorSession.objects.filter(operator=alice).exists()
    assert AuditEvent.objects.get(action="operator.force_logout").after == {"sessions_revoked": 2}


def test_admin_reset_of_2fa_sends_the_operator_back_to_enrolment(
    ada: Operator, alice: Operator, make_operator: Any
) -> None:
    alices = Client()
    full_login(alices, alice)
    reason = {"totp-reason": "lost phone, checked by video call"}
    assert verified_client(ada).post(f"/operators/{alice.pk}/reset-2fa/", reason).status_code == 302
    # Nothing happens until a second admin approves.
    assert alices.get("/security/").status_code == 200
    reset = CredentialResetRequest.objects.get(operator=alice)
    second = verified_client(make_operator("adam", ["admin"]))
    assert second.post(f"/operators/resets/{reset.pk}/approve/").status_code == 302
    assert alices.get("/security/").status_code == 302
    fresh = Client()
    password_login(fresh, "alice")
    assert fresh.get("/login/verify/")["Location"].startswith("/login/enroll/")
    assert AuditEvent.objects.filter(action="operator.totp_reset", target_id=str(alice.pk)).exists()


def test_my_security_regenerates_backup_codes_after_step_up(alice: Operator) -> None:
    client = verified_client(alice)
    response = client.post("/security/backup-codes/")
    assert response.status_code == 200
    assert len(response.context["codes"]) == 10
    assert client.get("/security/").context["backup_codes_left"] == 10
    stale = verified_client(alice, stepped_up=False)
    assert stale.post("/security/backup-codes/")["Location"].startswith("/security/verify/")
