"""Django's last-resort error views (handler400/403/404/500), answering the API in its one
JSON error shape and the UI with Django's pages.

DRF renders the errors raised inside an API view; these cover what reaches Django instead:
an unknown /api/ URL (404), an exception no handler knew (500, under DEBUG=0 only: with
DEBUG on Django shows its debug page), a bad request rejected before any view ran (400).

A database that is unreachable for a moment (restart, failover, a dropped connection, a
deadlock or serialization failure) is not a server bug: the 500 handler answers 503 with
Retry-After instead, so clients and load balancers retry rather than report a failure.
"""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.html import format_html
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import defaults

API_PREFIX = "/api/"

# How long a client should wait before retrying after the database was unreachable: about what
# a PostgreSQL restart or a managed failover takes.
RETRY_AFTER_SECONDS = 5

# SQLSTATEs of OperationalErrors that are the database's momentary state, not a bug: class 08
# (connection exceptions), 40001/40P01 (serialization failure, deadlock: retry the
# transaction), 53300 (too many connections), 57P01-57P03 (shut down, crashed, starting up).
_TRANSIENT_SQLSTATES = ("08", "40001", "40P01", "53300", "57P01", "57P02", "57P03")


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def json_error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(400, "bad_request", _("The request is not valid."))
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(403, "forbidden", _("You do not have permission to perform this action."))
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(404, "not_found", _("Not found."))
    return defaults.page_not_found(request, exception)


def database_unavailable(exc: BaseException | None) -> bool:
    """Whether an exception says the database could not serve the request just now."""
    if isinstance(exc, InterfaceError):
        return True  # the connection is closed or broken
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None)
    if sqlstate is None:
        # psycopg raises without a SQLSTATE when no server answered at all (connection
        # refused, closed mid-statement); SQLite's momentary state is a held write lock.
        from_psycopg = cause is not None and type(cause).__module__.startswith("psycopg")
        return from_psycopg or "database is locked" in str(exc)
    return sqlstate.startswith(_TRANSIENT_SQLSTATES)


def service_unavailable(request: HttpRequest) -> HttpResponse:
    response: HttpResponse
    if is_api(request):
        request_id = getattr(request, "request_id", "")
        response = json_error(
            503,
            "database_unavailable",
            _(
                "The database is unavailable for a moment; retry in a few seconds. A write "
                "retried with the same Idempotency-Key takes effect at most once (request id "
                "%(id)s)."
            )
            % {"id": request_id},
        )
    else:
        response = HttpResponse(
            format_html(
                '<!doctype html><html lang="{}"><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                "<title>{}</title><h1>{}</h1><p>{}</p></html>",
                get_language() or "en",
                _("Service unavailable"),
                _("The database is unavailable for a moment"),
                _(
                    "Reload the page in a few seconds. If you had sent a form, check whether it "
                    "was saved before you send it again."
                ),
            ),
            status=503,
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this handler while it handles the exception, so it is the current one.
    if database_unavailable(sys.exc_info()[1]):
        return service_unavailable(request)
    if is_api(request):
        request_id = getattr(request, "request_id", "")
        return json_error(
            500,
            "server_error",
            _("The server failed to answer this request (request id %(id)s).") % {"id": request_id},
        )
    return defaults.server_error(request)
