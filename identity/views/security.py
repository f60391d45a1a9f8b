"""My security: authenticator, backup codes, active sessions, password."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import HASH_SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from backoffice.errors import DomainError, ValidationFailed
from backoffice.middleware import client_ip
from backoffice.request_operator import request_operator
from identity import otp, selectors, services, stepup
from identity.forms import PasswordChangeForm
from identity.views.auth import _destination, safe_next


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


@never_cache
@require_http_methods(["GET", "POST"])
def password_change(request: HttpRequest) -> HttpResponse:
    """Change one's own password: the current one, the new one twice and a current code.

    Right after a first login (`must_change_password`) this is the only page the session can
    reach, and it asks for the temporary password but no code: the session has just given
    one. It still needs that code to be recent (step-up), so a browser left signed in
    overnight cannot be used to set a password."""
    me = request_operator(request)
    forced = me.must_change_password
    if forced and not stepup.is_fresh(request):
        return stepup.stepup_required(password_change)(request)
    next_url = safe_next(request)
    form = PasswordChangeForm(request.POST or None, forced=forced)
    if request.method == "POST" and form.is_valid():
        try:
            ended = services.operator_password_change(
                operator=me,
                old_password=form.cleaned_data["old_password"],
                new_password=form.cleaned_data["new_password"],
                code=form.cleaned_data.get("code"),
                ip=client_ip(request),
                keep_session_key=request.session.session_key,
            )
        except ValidationFailed as exc:
            for field, errors in exc.fields.items():
                for error in errors:
                    form.add_error(field if field in form.fields else None, error)
            if not exc.fields:
                form.add_error(None, exc.message)
        except DomainError as exc:
            form.add_error(None, exc.message)
        else:
            # The password is part of the session's auth hash: store the new hash so this
            # session stays valid, and give it a new key (the privilege it holds changed).
            me.refresh_from_db()
            request.session[HASH_SESSION_KEY] = me.get_session_auth_hash()
            services.session_rotate(request.session)
            if forced:
                messages.success(request, gettext("Your password is set. Welcome."))
                return redirect(_destination(me, next_url))
            if ended:
                messages.success(
                    request,
                    ngettext(
                        "Password changed. Your other session was signed out.",
                        "Password changed. Your %(count)d other sessions were signed out.",
                        ended,
                    )
                    % {"count": ended},
                )
            else:
                messages.success(request, gettext("Password changed."))
            return redirect("identity:security")
    return render(
        request,
        "identity/password_change.html",
        {"form": form, "forced": forced, "next": next_url},
    )
