"""Login throttling and lockout, per account name and per client address, for password and
OTP attempts alike (one set of counters: an attacker gains nothing by switching factor).

A counter counts failures inside a window of LOGIN_LOCKOUT_SECONDS from its first failure.
Reaching the limit (LOGIN_MAX_FAILURES per account, LOGIN_IP_MAX_FAILURES per address)
locks that key for LOGIN_LOCKOUT_SECONDS; after that the counter starts afresh. Rows live in
the database so every worker process shares them.

These functions write only throttle rows; the services in identity.services.login call them
inside their audited transactions.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from identity.models import LoginThrottle, ThrottleScope


@dataclass(frozen=True)
class ThrottleKey:
    scope: str
    key: str

    @property
    def limit(self) -> int:
        if self.scope == ThrottleScope.ACCOUNT:
            return int(settings.LOGIN_MAX_FAILURES)
        return int(settings.LOGIN_IP_MAX_FAILURES)


def keys_for(username: str, ip: str | None) -> list[ThrottleKey]:
    return [
        ThrottleKey(ThrottleScope.ACCOUNT, username.strip().lower()[:150]),
        ThrottleKey(ThrottleScope.IP, ip or "unknown"),
    ]


def _window() -> dt.timedelta:
    return dt.timedelta(seconds=int(settings.LOGIN_LOCKOUT_SECONDS))


def locked_until(keys: list[ThrottleKey]) -> dt.datetime | None:
    """The latest lock end among `keys`, or None when none of them is locked now."""
    now = timezone.now()
    match = Q()
    for k in keys:
        match |= Q(scope=k.scope, key=k.key)
    ends = LoginThrottle.objects.filter(match, locked_until__gt=now).values_list(
        "locked_until", flat=True
    )
    # The filter already excludes NULL; the generator narrows the type for max().
    return max((end for end in ends if end is not None), default=None)


def record_failure(keys: list[ThrottleKey]) -> list[ThrottleKey]:
    """Count one failure against every key; return the keys this failure locked.

    Call inside a transaction: the row lock (select_for_update) makes concurrent failures
    from several processes add up instead of overwriting each other.
    """
    now = timezone.now()
    # Forget counters whose window and lock are both over, so guesses at made-up account
    # names cannot grow the table without bound.
    LoginThrottle.objects.filter(window_started_at__lt=now - _window()).filter(
        Q(locked_until__isnull=True) | Q(locked_until__lte=now)
    ).delete()
    newly_locked = []
    for k in keys:
        LoginThrottle.objects.get_or_create(
            scope=k.scope, key=k.key, defaults={"window_started_at": now}
        )
        row = LoginThrottle.objects.select_for_update().get(scope=k.scope, key=k.key)
        window_over = row.window_started_at + _window() <= now
        lock_over = row.locked_until is not None and row.locked_until <= now
        if window_over or lock_over:
            row.failures = 0
            row.window_started_at = now
            row.locked_until = None
        row.failures += 1
        if row.locked_until is None and row.failures >= k.limit:
            row.locked_until = now + _window()
            newly_locked.append(k)
        row.save(update_fields=["failures", "window_started_at", "locked_until"])
    return newly_locked


def reset(key: ThrottleKey) -> None:
    """Forget an account's failures after a complete (password and OTP) login. The address
    counter is left to expire: one valid account must not launder a guessing address."""
    LoginThrottle.objects.filter(scope=key.scope, key=key.key).delete()
