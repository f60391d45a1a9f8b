from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.db import DataError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseNotAllowed
from django.utils.translation import gettext as _

from backoffice import request_context
from backoffice.error_views import is_api, json_error

logger = logging.getLogger(__name__)

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


_REFUSED_METHODS = frozenset({"TRACE", "CONNECT"})
_ALLOWED_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _has_nul(request: HttpRequest) -> bool:
    """A NUL character in the path, a query parameter (name or value) or a form field;
    uploaded files' contents are not inspected (binary files hold NULs)."""
    if "\x00" in request.path_info:
        return True
    fields = [request.GET]
    if request.method == "POST" and request.content_type in _FORM_TYPES:
        fields.append(request.POST)
    return any(
        "\x00" in key or any("\x00" in value for value in values)
        for params in fields
        for key, values in params.lists()
    )


class BadInputMiddleware:
    """Refuse input the databases disagree on, and turn the database's own out-of-range
    refusals into 400s instead of 500s.

    A NUL byte is text SQLite stores and PostgreSQL rejects (DataError): refused here on
    both, for every URL, before any view reads it (JSON bodies: backoffice.parsers). A
    number out of a column's range (an id past 64 bits in a URL or a filter no view
    checked) fails in the driver: OverflowError on SQLite, DataError on PostgreSQL; both are
    the client's bad input, answered 400 (API: the JSON error shape)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in _REFUSED_METHODS:
            # No view answers TRACE or CONNECT; say so (405) before any permission check
            # answers 403 and suggests that someone else might be allowed.
            return HttpResponseNotAllowed(_ALLOWED_METHODS)
        if _has_nul(request):
            return self._bad(request, _("The request contains a NUL character."))
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, OverflowError | DataError):
            logger.warning("bad input refused by the database: %r", exception)
            return self._bad(request, _("A value in the request is out of range."))
        return None

    @staticmethod
    def _bad(request: HttpRequest, message: str) -> HttpResponse:
        if is_api(request):
            return json_error(400, "bad_request", message)
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


class ContentSecurityPolicyMiddleware:
    """Send CONTENT_SECURITY_POLICY on every response that has none yet: scripts only from
    this site (no inline script, no eval), nothing framed, forms posting only here. Inline
    styles stay allowed (htmx's indicator style, SVG attributes); scripts are what matter."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = str(getattr(settings, "CONTENT_SECURITY_POLICY", ""))

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        return response
