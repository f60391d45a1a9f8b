"""Django's last-resort error views (handler400/403/404/500), answering the API in its one
JSON error shape and the UI with Django's pages.

DRF renders the errors raised inside an API view; these cover what reaches Django instead:
an unknown /api/ URL (404), an exception no handler knew (500, under DEBUG=0 only: with
DEBUG on Django shows its debug page), a bad request rejected before any view ran (400).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults

API_PREFIX = "/api/"


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


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        request_id = getattr(request, "request_id", "")
        return json_error(
            500,
            "server_error",
            _("The server failed to answer this request (request id %(id)s).") % {"id": request_id},
        )
    return defaults.server_error(request)
