from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone, translation
from django.utils.http import urlencode

from identity import otp
from identity.models import OperatorSession

# Pages a session may reach before its second factor is verified. Everything else under the
# UI redirects to login (anonymous) or to the OTP step (password given, code not yet).
OPEN_URL_NAMES = frozenset(
    {
        "identity:login",
        "identity:logout",
        "identity:language",
        "identity:otp_challenge",
        "identity:enroll",
        "healthz",
        "favicon",
    }
)
# What a verified session may still reach while its password is a temporary one that an admin
# chose: the form to set its own, and the code prompt that form may need first.
PASSWORD_CHANGE_OPEN = frozenset({"identity:password_change", "identity:stepup"})
# The API answers for itself: DRF returns 401/403 JSON to callers without a verified
# session or a valid token, which is what API clients expect instead of a redirect.
API_PREFIX = "/api/"
# "Last seen" on the sessions page is refreshed at most once a minute per session, so a busy
# operator costs one extra write a minute, not one per request.
LAST_SEEN_EVERY_SECONDS = 60
LAST_SEEN_SESSION_KEY = "identity.last_seen"


def touch_session(request: HttpRequest) -> None:
    now = time.time()
    seen = request.session.get(LAST_SEEN_SESSION_KEY)
    if isinstance(seen, int | float) and now - seen < LAST_SEEN_EVERY_SECONDS:
        return
    request.session[LAST_SEEN_SESSION_KEY] = now
    if request.session.session_key:
        OperatorSession.objects.filter(session_key=request.session.session_key).update(
            last_seen_at=timezone.now()
        )


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
            return redirect(
                f"{settings.LOGIN_URL_PATH}?{urlencode({'next': request.get_full_path()})}"
            )
        if getattr(user, "is_service_principal", False):
            # Service principals never use the UI; a session of one is a mistake or an attack.
            logout(request)
            return redirect(settings.LOGIN_URL_PATH)
        if not otp.session_verified(user):
            return redirect(
                f"{settings.OTP_URL_PATH}?{urlencode({'next': request.get_full_path()})}"
            )
        touch_session(request)
        if getattr(user, "must_change_password", False) and name not in PASSWORD_CHANGE_OPEN:
            # The password an admin chose (and saw) opens only the form to replace it.
            return redirect(
                f"{reverse('identity:password_change')}?"
                f"{urlencode({'next': request.get_full_path()})}"
            )
        return self.get_response(request)


class OperatorLanguageMiddleware:
    """Applies the language an operator chose with the header switch, after authentication
    (LocaleMiddleware, earlier, has only the cookie and Accept-Language to go on)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = getattr(request.user, "language", "") if request.user.is_authenticated else ""
        if language and translation.check_for_language(language):
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)
