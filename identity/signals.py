"""Session bookkeeping hooked to django.contrib.auth's login signal, so every way of
logging in (the login view, the test client's force_login) leaves an OperatorSession row.
Bookkeeping only: the audited event for a login is `login.success`."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from backoffice.middleware import client_ip
from identity.models import Operator, OperatorSession


def record_session(sender: Any, request: HttpRequest | None, user: Operator, **kwargs: Any) -> None:
    if request is None or not hasattr(request, "session"):
        return
    if request.session.session_key is None:
        request.session.save()
    key = request.session.session_key
    if key is None:
        return
    OperatorSession.objects.update_or_create(
        session_key=key,
        defaults={
            "operator": user,
            "ip": client_ip(request),
            "user_agent": request.META.get("HTTP_USER_AGENT", "")[:300],
        },
    )


def forget_session(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if request is None or not hasattr(request, "session"):
        return
    key = request.session.session_key
    if key:
        OperatorSession.objects.filter(session_key=key).delete()
