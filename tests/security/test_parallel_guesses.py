"""Finding 3 (Medium): parallel guesses passed the account lock. The attacker fires 24 wrong
passwords (or 24 wrong app codes) for one account at the same instant, each on its own
database connection; the lock (LOGIN_MAX_FAILURES = 5) must bound the number of real checks
to 5, whatever the interleaving. Each check is slowed to 0.2 s, as a real password hash is,
so that every request is in flight at once: with the old read-then-check order all 24 read
"not locked" and all 24 were checked."""

from __future__ import annotations

import threading
import time

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from identity.models import LoginThrottle, Operator
from identity.services.login import LoginRefused, OtpRefused, login_password_check, otp_verify
from tests.conftest import PASSWORD
from tests.payments_sandbox.concurrency import require_real_connections, run_concurrently

pytestmark = pytest.mark.django_db(transaction=True)

GUESSES = 24
LIMIT = 5


class Counter:
    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.count += 1


@pytest.fixture
def password_checks(monkeypatch: pytest.MonkeyPatch) -> Counter:
    counter = Counter()
    real = Operator.check_password

    def slow_check(self: Operator, raw_password: str) -> bool:
        counter.add()
        time.sleep(0.2)
        return real(self, raw_password)

    monkeypatch.setattr(Operator, "check_password", slow_check)
    return counter


def test_24_parallel_wrong_passwords_get_at_most_5_real_checks(
    settings, make_operator, password_checks
) -> None:
    require_real_connections()
    settings.LOGIN_MAX_FAILURES = LIMIT
    make_operator("victim", [])

    def guess(i: int) -> object:
        return login_password_check(username="victim", password=f"guess-{i}", ip="203.0.113.7")

    results = run_concurrently(GUESSES, guess)
    assert all(isinstance(r, LoginRefused) for r in results), results
    assert password_checks.count <= LIMIT, f"{password_checks.count} real password checks"
    row = LoginThrottle.objects.get(scope="account", key="victim")
    assert row.locked_until is not None and row.failures == LIMIT
    # Locked now: even the right password is not checked, and is refused.
    before = password_checks.count
    with pytest.raises(LoginRefused):
        login_password_check(username="victim", password=PASSWORD, ip="198.51.100.1")
    assert password_checks.count == before


def test_a_right_password_among_parallel_wrong_ones_gives_its_reservation_back(
    settings, make_operator, password_checks
) -> None:
    require_real_connections()
    settings.LOGIN_MAX_FAILURES = LIMIT
    victim = make_operator("victim", [])

    def attempt(i: int) -> object:
        password = PASSWORD if i == 0 else f"guess-{i}"
        return login_password_check(username="victim", password=password, ip="203.0.113.7")

    results = run_concurrently(3, attempt)
    assert results[0] == victim
    assert all(isinstance(r, LoginRefused) for r in results[1:])
    assert LoginThrottle.objects.get(scope="account", key="victim").failures == 2


def test_24_parallel_wrong_app_codes_get_at_most_5_code_checks(
    settings, make_operator, monkeypatch
) -> None:
    require_real_connections()
    settings.LOGIN_MAX_FAILURES = LIMIT
    victim = make_operator("victim", [])
    checks = Counter()
    real = TOTPDevice.verify_token

    def slow_verify(self: TOTPDevice, token: object) -> bool:
        checks.add()
        time.sleep(0.2)
        return real(self, token)

    monkeypatch.setattr(TOTPDevice, "verify_token", slow_verify)

    def guess(i: int) -> object:
        return otp_verify(operator=victim, code=f"{i:06d}", ip="203.0.113.7", purpose="login")

    results = run_concurrently(GUESSES, guess)
    assert all(isinstance(r, OtpRefused) for r in results), results
    assert checks.count <= LIMIT, f"{checks.count} real code checks"
