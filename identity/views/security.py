"""My security: authenticator, backup codes, active sessions."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from backoffice.errors import DomainError
from backoffice.http import request_operator
from identity import otp, selectors, services, stepup


@require_GET
def security(request: HttpRequest) -> HttpResponse:
    me = request_operator(request)
    return render(
        request,
        "identity/security.html",
        {
            "totp": otp.confirmed_totp(me),
            "backup_codes_left": otp.backup_codes_left(me),
            "sessions": selectors.session_list_for_operator(operator=me),
            "current_key": request.session.session_key,
            "stepup_seconds_left": stepup.seconds_left(request.session),
        },
    )


@require_POST
@stepup.stepup_required
def backup_codes_regenerate(request: HttpRequest) -> HttpResponse:
    try:
        codes = services.backup_codes_regenerate(actor=request_operator(request))
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("identity:security")
    return render(
        request,
        "identity/backup_codes.html",
        {"codes": codes, "next": "/security/", "first_time": False},
    )


@require_POST
def session_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    me = request_operator(request)
    session = selectors.session_get_for_operator(operator=me, pk=pk)
    own = session.session_key == request.session.session_key
    services.session_revoke(actor=me, session=session)
    if own:
        return redirect("identity:login")
    messages.success(request, gettext("That session was signed out."))
    return redirect("identity:security")
