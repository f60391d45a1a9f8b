from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.http import HttpRequest
from django.http.response import HttpResponseBase

from identity import access

# Plain pages return HttpResponse, the audit export a StreamingHttpResponse; the guards keep
# whichever the view returns.
ResponseT = TypeVar("ResponseT", bound=HttpResponseBase)


def admin_required(view: Callable[..., ResponseT]) -> Callable[..., ResponseT]:
    """403 unless the operator may manage operators. Checked before step-up, so nobody is
    asked for a code for an action they could never perform."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> ResponseT:
        access.require_manage_operators(request.user)
        return view(request, *args, **kwargs)

    return wrapper


def auditor_required(view: Callable[..., ResponseT]) -> Callable[..., ResponseT]:
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> ResponseT:
        access.require_view_audit(request.user)
        return view(request, *args, **kwargs)

    return wrapper
