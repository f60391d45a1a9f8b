from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse

from identity import access


def admin_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """403 unless the operator may manage operators. Checked before step-up, so nobody is
    asked for a code for an action they could never perform."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        access.require_manage_operators(request.user)
        return view(request, *args, **kwargs)

    return wrapper


def auditor_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        access.require_view_audit(request.user)
        return view(request, *args, **kwargs)

    return wrapper
