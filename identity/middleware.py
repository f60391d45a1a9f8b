from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import Resolver404, resolve
from django.utils.http import urlencode

# Pages a session may reach before its second factor is verified. Everything else under the
# UI redirects to login (anonymous) or to the OTP step (password given, code not yet).
OPEN_URL_NAMES = frozenset(
    {
        "identity:login",
        "identity:logout",
        "identity:otp_challenge",
        "identity:enroll",
        "identity:healthz",
    }
)
# The API answers for itself: DRF returns 401/403 JSON to callers without a verified
# session or a valid token, which is what API clients expect instead of a redirect.
API_PREFIX = "/api/"


class RequireVerifiedOperatorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if path.startswith(API_PREFIX) or path.startswith(settings.STATIC_URL):
            return self.get_response(request)
        try:
            match = resolve(path)
            name = f"{match.namespace}:{match.url_name}" if match.namespace else match.url_name
        except Resolver404:
            name = None
        if name in OPEN_URL_NAMES:
            return self.get_response(request)
        user = request.user
        if not user.is_authenticated:
            return redirect(f"{settings.LOGIN_URL_PATH}?{urlencode({'next': request.get_full_path()})}")
        if getattr(user, "is_service_principal", False):
            # Service principals never use the UI; a session of one is a mistake or an attack.
            logout(request)
            return redirect(settings.LOGIN_URL_PATH)
        if not user.is_verified():  # type: ignore[union-attr]
            return redirect(f"{settings.OTP_URL_PATH}?{urlencode({'next': request.get_full_path()})}")
        return self.get_response(request)
