from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from backoffice import request_context

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def client_ip(request: HttpRequest) -> str | None:
    """The caller's address. X-Forwarded-For is trusted only when TRUSTED_PROXY is set,
    otherwise any client could choose the address the lockout and audit trail see."""
    if getattr(settings, "TRUSTED_PROXY", False):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return forwarded.split(",")[-1].strip() or None
    return request.META.get("REMOTE_ADDR") or None


class RequestContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _REQUEST_ID.match(incoming) else request_context.new_request_id()
        context = request_context.RequestContext(
            request_id=request_id,
            ip=client_ip(request),
            user_agent=request.headers.get("User-Agent", "")[:300],
        )
        request.request_id = request_id  # type: ignore[attr-defined]
        with request_context.bound(context):
            response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response
