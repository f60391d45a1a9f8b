from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from identity.models import AuditEvent, Operator
from tests.conftest import verified_client
from tests.identity.helpers import code_for, device_of

pytestmark = pytest.mark.django_db


def test_a_sensitive_action_re_challenges_after_step_up_expiry_then_returns(
    ada: Operator, olga: Operator, settings
) -> None:
    settings.STEP_UP_SECONDS = 300
    roles_url = f"/operators/{olga.pk}/roles/"
    detail_url = f"/operators/{olga.pk}/"
    with time_machine.travel(timezone.now(), tick=False) as clock:
        client = verified_client(ada)  # stepped up now
        clock.shift(dt.timedelta(seconds=299))
        response = client.post(
            roles_url, {"roles": ["agent"]}, HTTP_REFERER=f"http://testserver{detail_url}"
        )
        assert response.status_code == 302 and response["Location"] == detail_url
        assert olga.role_names() == {"agent"}

        clock.shift(dt.timedelta(seconds=2))  # 301 s after the last verification
        response = client.post(
            roles_url, {"roles": ["approver"]}, HTTP_REFERER=f"http://testserver{detail_url}"
        )
        assert response.status_code == 302
        assert response["Location"].startswith("/security/verify/?next=")
        olga.__dict__.pop("_role_names", None)
        assert olga.role_names() == {"agent"}

        clock.shift(dt.timedelta(seconds=30))  # a new TOTP period: a fresh code
        response = client.post(
            "/security/verify/?next=" + detail_url, {"code": code_for(device_of(ada))}
        )
        # The role change the challenge interrupted is carried out, as it was asked for.
        assert response.status_code == 302 and response["Location"] == detail_url
        olga.__dict__.pop("_role_names", None)
        assert olga.role_names() == {"approver"}
        # ... once: the kept request is gone, a later challenge carries out nothing.
        client.post(roles_url, {"roles": ["agent"]})
        olga.__dict__.pop("_role_names", None)
        assert olga.role_names() == {"agent"}
    assert AuditEvent.objects.filter(action="stepup.success", actor_id=ada.pk).count() == 1


def test_step_up_never_redirects_off_site(ada: Operator) -> None:
    client = verified_client(ada, stepped_up=False)
    response = client.post(
        "/security/verify/?next=https://evil.example/steal", {"code": code_for(device_of(ada))}
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_a_wrong_step_up_code_is_refused_and_audited(ada: Operator) -> None:
    client = verified_client(ada, stepped_up=False)
    good = code_for(device_of(ada))
    response = client.post(
        "/security/verify/", {"code": "000000" if good != "000000" else "111111"}
    )
    assert response.status_code == 200
    assert AuditEvent.objects.filter(action="otp.failure", after__purpose="stepup").exists()


def test_an_interrupted_action_is_carried_out_only_in_its_own_session_and_only_fresh(
    ada: Operator, olga: Operator, settings
) -> None:
    settings.STEP_UP_SECONDS = 300
    roles_url = f"/operators/{olga.pk}/roles/"
    with time_machine.travel(timezone.now(), tick=False) as clock:
        client = verified_client(ada, stepped_up=False)
        other = verified_client(ada, stepped_up=False)  # the same admin, another browser
        client.post(roles_url, {"roles": ["approver"]})
        # Verifying in another session carries out nothing of this one.
        other.post("/security/verify/?next=/", {"code": code_for(device_of(ada))})
        olga.__dict__.pop("_role_names", None)
        assert olga.role_names() == set()
        # Past the waiting time, the kept request is dropped, not carried out.
        clock.shift(dt.timedelta(seconds=601 + 30))
        response = client.post(
            "/security/verify/?next=/operators/", {"code": code_for(device_of(ada))}
        )
        assert response.status_code == 302 and response["Location"] == "/operators/"
        olga.__dict__.pop("_role_names", None)
        assert olga.role_names() == set()
