"""The header's language switch is public (the login page has it), so it must not let a
password-only session write to the account."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from identity.models import Operator
from tests.conftest import verified_client


@pytest.mark.django_db
def test_a_password_only_session_gets_the_cookie_but_does_not_change_the_operator(
    alice: Operator,
) -> None:
    client = Client()
    client.force_login(alice)  # no second factor yet
    response = client.post("/language/", {"language": "zh-hans"})
    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    alice.refresh_from_db()
    assert alice.language != "zh-hans"


@pytest.mark.django_db
def test_a_verified_session_remembers_the_choice_on_the_operator(alice: Operator) -> None:
    response = verified_client(alice).post("/language/", {"language": "zh-hans"})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.language == "zh-hans"


@pytest.mark.django_db
def test_an_unknown_language_is_refused(alice: Operator) -> None:
    response = verified_client(alice).post("/language/", {"language": "xx"})
    assert response.status_code == 400
    alice.refresh_from_db()
    assert alice.language != "xx"
