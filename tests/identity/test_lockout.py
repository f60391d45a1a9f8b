"""Throttling per account and per address, for passwords and OTP codes, stored in the
database, and released after the window."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.test import Client

from identity.models import AuditEvent, LoginThrottle, Operator
from tests.identity.helpers import code_for, device_of, password_login

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def logged_in(response) -> bool:
    return response.status_code == 302 and response["Location"].startswith("/login/verify/")


def test_it_locks_an_account_after_repeated_password_failures_and_releases_it_later(
    alice: Operator, settings
) -> None:
    settings.LOGIN_MAX_FAILURES = 3
    settings.LOGIN_LOCKOUT_SECONDS = 600
    with time_machine.travel(START, tick=False) as clock:
        for _ in range(3):
            assert not logged_in(password_login(Client(), "alice", "not-the-password"))
        assert not logged_in(password_login(Client(), "alice"))  # right password, locked
        assert (
            AuditEvent.objects.filter(action="login.lockout", target_id=str(alice.pk)).count() == 1
        )
        clock.shift(dt.timedelta(seconds=599))
        assert not logged_in(password_login(Client(), "alice"))
        clock.shift(dt.timedelta(seconds=2))
        assert logged_in(password_login(Client(), "alice"))


def test_the_lock_is_kept_in_the_database_so_every_process_sees_it(
    alice: Operator, settings
) -> None:
    settings.LOGIN_MAX_FAILURES = 2
    for _ in range(2):
        password_login(Client(), "alice", "nope-nope-nope")
    row = LoginThrottle.objects.get(scope="account", key="alice")
    assert row.locked_until is not None
    assert row.failures == 2


def test_it_locks_an_address_that_guesses_across_many_accounts(
    alice: Operator, bob: Operator, settings
) -> None:
    settings.LOGIN_MAX_FAILURES = 100
    settings.LOGIN_IP_MAX_FAILURES = 3
    for name in ("x1", "x2", "x3"):
        password_login(Client(), name, "guess-guess", REMOTE_ADDR="203.0.113.7")
    assert not logged_in(password_login(Client(), "alice", REMOTE_ADDR="203.0.113.7"))
    assert logged_in(password_login(Client(), "bob", REMOTE_ADDR="198.51.100.1"))


def test_otp_failures_count_towards_the_same_lock_and_release(alice: Operator, settings) -> None:
    settings.LOGIN_MAX_FAILURES = 3
    settings.LOGIN_LOCKOUT_SECONDS = 300
    device = device_of(alice)
    with time_machine.travel(START, tick=False) as clock:
        client = Client()
        assert logged_in(password_login(client, "alice"))
        good = code_for(device)
        bad = "123456" if good != "123456" else "654321"
        for _ in range(3):
            client.post("/login/verify/", {"code": bad})
        response = client.post("/login/verify/", {"code": good})
        assert b"Too many attempts" in response.content
        assert client.get("/security/").status_code == 302
        # The password step is locked too now.
        assert not logged_in(password_login(Client(), "alice"))
        assert AuditEvent.objects.filter(action="otp.lockout").count() == 1
        clock.shift(dt.timedelta(seconds=301))
        response = client.post("/login/verify/", {"code": code_for(device)})
        assert response.status_code == 302
        assert client.get("/security/").status_code == 200


def test_a_complete_login_clears_the_account_counter(alice: Operator, settings) -> None:
    settings.LOGIN_MAX_FAILURES = 3
    password_login(Client(), "alice", "wrong-wrong-wrong")
    password_login(Client(), "alice", "wrong-wrong-wrong")
    client = Client()
    password_login(client, "alice")
    client.post("/login/verify/", {"code": code_for(device_of(alice))})
    assert not LoginThrottle.objects.filter(scope="account", key="alice").exists()


def test_expired_counters_are_forgotten(settings) -> None:
    settings.LOGIN_LOCKOUT_SECONDS = 60
    with time_machine.travel(START, tick=False) as clock:
        password_login(Client(), "ghost-one", "guess-guess")
        clock.shift(dt.timedelta(seconds=61))
        password_login(Client(), "ghost-two", "guess-guess")
    keys = set(LoginThrottle.objects.values_list("key", flat=True))
    assert "ghost-one" not in keys
    assert "ghost-two" in keys
