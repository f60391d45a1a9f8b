"""Login throttling and lockout, per account name and per client address, for password and
OTP attempts alike (one set of counters: an attacker gains nothing by switching factor).

A counter counts failures inside a window of LOGIN_LOCKOUT_SECONDS from its first failure.
Reaching the limit (LOGIN_MAX_FAILURES per account, LOGIN_IP_MAX_FAILURES per address)
locks that key for LOGIN_LOCKOUT_SECONDS; after that the counter starts afresh. Rows live in
the database so every worker process shares them.

These functions write only throttle rows; the services in identity.services.login call them
inside their audited transactions.

Parallel guesses: a lock read before the password is checked lets every request that read it
in the same instant through (24 simultaneous wrong passwords got 12 to 16 real checks against a
limit of 5). `attempt_reserve` therefore counts the attempt as a failure, under the rows'
locks and in the same transaction as the lock decision, *before* anything is checked; a
request that then proves right gives its reservation back with `attempt_release`. So at most
`limit` checks ever run per window, however many arrive at once.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
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


def _purge(now: dt.datetime) -> None:
    # Forget counters whose window and lock are both over, so guesses at made-up account
    # names cannot grow the table without bound.
    LoginThrottle.objects.filter(window_started_at__lt=now - _window()).filter(
        Q(locked_until__isnull=True) | Q(locked_until__lte=now)
    ).delete()


def _locked_rows(keys: list[ThrottleKey], now: dt.datetime) -> list[LoginThrottle]:
    """The keys' rows, created if missing, each locked until the transaction ends. Always in
    the order of `keys` (account, then address), so two attempts cannot deadlock."""
    rows = []
    for k in keys:
        LoginThrottle.objects.get_or_create(
            scope=k.scope, key=k.key, defaults={"window_started_at": now}
        )
        rows.append(LoginThrottle.objects.select_for_update().get(scope=k.scope, key=k.key))
    return rows


def _count(
    keys: list[ThrottleKey], rows: list[LoginThrottle], now: dt.datetime
) -> list[ThrottleKey]:
    newly_locked = []
    for k, row in zip(keys, rows, strict=True):
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


def record_failure(keys: list[ThrottleKey]) -> list[ThrottleKey]:
    """Count one failure against every key; return the keys this failure locked.

    Call inside a transaction: the row lock (select_for_update) makes concurrent failures
    from several processes add up instead of overwriting each other.
    """
    now = timezone.now()
    _purge(now)
    return _count(keys, _locked_rows(keys, now), now)


@dataclass(frozen=True)
class Attempt:
    """One reserved attempt: `locked` when a key was already locked (nothing may be checked),
    else the attempt was counted as a failure and `newly_locked` are the keys it locked."""

    keys: list[ThrottleKey]
    locked: bool
    newly_locked: list[ThrottleKey]


def attempt_reserve(keys: list[ThrottleKey]) -> Attempt:
    """Decide, atomically, whether an attempt may be checked at all, and count it as a
    failure if so; commit that before the caller checks anything (so call it outside any
    transaction: inside one, other requests would not see the reservation until the
    caller's commit)."""
    now = timezone.now()
    with transaction.atomic():
        _purge(now)
        rows = _locked_rows(keys, now)
        if any(row.locked_until is not None and row.locked_until > now for row in rows):
            return Attempt(keys, locked=True, newly_locked=[])
        return Attempt(keys, locked=False, newly_locked=_count(keys, rows, now))


def attempt_release(attempt: Attempt) -> None:
    """Give back a reservation whose attempt proved right: one failure fewer on each key, and
    a lock that this very attempt set is lifted."""
    if attempt.locked:
        return
    now = timezone.now()
    with transaction.atomic():
        for k, row in zip(attempt.keys, _locked_rows(attempt.keys, now), strict=True):
            row.failures = max(0, row.failures - 1)
            if k in attempt.newly_locked:
                row.locked_until = None
            row.save(update_fields=["failures", "locked_until"])


def reset(key: ThrottleKey) -> None:
    """Forget an account's failures after a complete (password and OTP) login. The address
    counter is left to expire: one valid account must not launder a guessing address."""
    LoginThrottle.objects.filter(scope=key.scope, key=key.key).delete()
