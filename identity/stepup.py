"""Step-up ("sudo mode"): sensitive actions need a second factor verified in the last
STEP_UP_SECONDS. The login OTP counts; after it expires the operator is re-challenged at
identity:stepup and sent back to where they were.

Views:   @stepup_required
API:     permission_classes = [..., StepUpFresh]  -> 403 {"error": {"code": "step_up_required"}}
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext
from rest_framework.permissions import BasePermission

from backoffice.errors import StepUpRequired
from identity import otp

STEPUP_SESSION_KEY = "identity.otp_verified_at"
PENDING_ACTION_SESSION_KEY = "identity.stepup_pending_action"
# How long an action interrupted by the challenge waits for the code.
PENDING_ACTION_SECONDS = 600


def mark_verified(session: SessionBase, at: float | None = None) -> None:
    session[STEPUP_SESSION_KEY] = time.time() if at is None else at


def seconds_left(session: SessionBase) -> int:
    verified_at = session.get(STEPUP_SESSION_KEY)
    if not isinstance(verified_at, int | float):
        return 0
    return max(0, int(verified_at + settings.STEP_UP_SECONDS - time.time()))


def is_fresh(request: HttpRequest) -> bool:
    if not otp.session_verified(request.user):
        return False
    return seconds_left(request.session) > 0


def stepup_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if is_fresh(request):
            return view(request, *args, **kwargs)
        back = request.get_full_path()
        if request.method == "POST":
            # The action the operator asked for (an approval with its note, a role change)
            # waits in their session and is carried out once the code is accepted; `next` is
            # the page they acted from, where they land if they abandon the challenge.
            pending_action_keep(request)
            back = request.META.get("HTTP_REFERER") or back
        return redirect(f"{reverse('identity:stepup')}?{urlencode({'next': back})}")

    return wrapper


def pending_action_keep(request: HttpRequest) -> None:
    """Keep this POST (path and fields, not the CSRF token) to carry out after step-up.

    The request already passed CSRF validation, and the copy lives only in this operator's
    session: a replay can only ever be their own request, once, within PENDING_ACTION_SECONDS.
    """
    fields = {
        key: request.POST.getlist(key) for key in request.POST if key != "csrfmiddlewaretoken"
    }
    request.session[PENDING_ACTION_SESSION_KEY] = {
        "path": request.path_info,
        "fields": fields,
        "at": time.time(),
    }


def pending_action_take(session: SessionBase) -> tuple[str, dict[str, list[str]]] | None:
    """The action kept by the last challenge (path and fields), once; None if none or stale."""
    pending = session.pop(PENDING_ACTION_SESSION_KEY, None)
    if not isinstance(pending, dict):
        return None
    at, path, fields = pending.get("at"), pending.get("path"), pending.get("fields")
    if not isinstance(at, int | float) or time.time() - at > PENDING_ACTION_SECONDS:
        return None
    if not isinstance(path, str) or not isinstance(fields, dict):
        return None
    return path, fields


class StepUpFresh(BasePermission):
    """API counterpart: a token caller can never satisfy step-up (service principals have no
    second factor), and a session must have verified an OTP recently."""

    def has_permission(self, request: Any, view: Any) -> bool:
        if request.auth is not None:
            return False
        if not is_fresh(request._request):
            raise StepUpRequired(
                gettext(
                    "Re-enter a one-time code to continue: this action needs a recent verification."
                )
            )
        return True
