"""A process is bound to exactly one payments mode.

PAYMENTS_MODE=sandbox (the default) talks to the in-process SandboxAdapter; PAYMENTS_MODE=live
talks to Stripe and needs STRIPE_API_KEY. Configuring both (a live key in a sandbox process)
or neither is refused at start-up, and a row stamped with the other mode is never touched:
moving real money from a process that believes it is a sandbox is the failure this prevents.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

SANDBOX = "sandbox"
LIVE = "live"


class ModeMismatch(RuntimeError):
    """A row of the other mode reached this process. Not a user error: a hard stop."""


def check_configuration() -> str:
    mode = str(getattr(settings, "PAYMENTS_MODE", SANDBOX)).strip().lower()
    key = getattr(settings, "STRIPE_API_KEY", "")
    if mode not in {SANDBOX, LIVE}:
        raise ImproperlyConfigured(
            f"PAYMENTS_MODE must be 'sandbox' or 'live' (one mode per process), not {mode!r}."
        )
    if mode == SANDBOX and key:
        raise ImproperlyConfigured(
            "STRIPE_API_KEY is set but PAYMENTS_MODE=sandbox: a process is bound to one mode. "
            "Unset the key, or set PAYMENTS_MODE=live to move real money."
        )
    if mode == LIVE and not key:
        raise ImproperlyConfigured("PAYMENTS_MODE=live needs STRIPE_API_KEY.")
    return mode


def current_mode() -> str:
    return check_configuration()


def assert_mode(row: Any) -> None:
    mode = current_mode()
    if row.mode != mode:
        raise ModeMismatch(
            f"{type(row).__name__} {row.pk} belongs to {row.mode} mode; this process runs in "
            f"{mode} mode and will not touch it."
        )
