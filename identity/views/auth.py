"""Login (password, then TOTP or a backup code), first-login enrolment, step-up, logout."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login as auth_login
from django.contrib.auth import logout as auth_logout
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice.context import landing_url
from backoffice.errors import Conflict
from backoffice.middleware import client_ip
from identity import otp, services, stepup
from identity.forms import CodeForm, EnrollForm, LoginForm
from identity.models import Operator

ENROLL_SESSION_KEY = "identity.enroll_device"


def safe_next(request: HttpRequest, default: str | None = None) -> str:
    """The `next` parameter if it points into this site, else `default` (home)."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default or reverse("home")


def _destination(user: object, next_url: str) -> str:
    """Where a verified operator goes: the page they asked for, or, when they asked for none
    (or for the home page), the first page of their role."""
    if next_url == reverse("home"):
        return landing_url(user)
    return next_url


def _with_next(url_name: str, next_url: str) -> str:
    return f"{reverse(url_name)}?{urlencode({'next': next_url})}"


def _is_verified(request: HttpRequest) -> bool:
    return otp.session_verified(request.user)


@never_cache
@require_http_methods(["GET", "POST"])
def login_view(request: HttpRequest) -> HttpResponse:
    next_url = safe_next(request)
    if _is_verified(request):
        return redirect(_destination(request.user, next_url))
    form = LoginForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            operator = services.login_password_check(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password"],
                ip=client_ip(request),
            )
        except services.LoginRefused as exc:
            error = exc.message
        else:
            auth_login(request, operator, backend="identity.access.RoleBackend")
            return redirect(_with_next("identity:otp_challenge", next_url))
    return render(request, "identity/login.html", {"form": form, "error": error, "next": next_url})


@never_cache
@require_http_methods(["GET", "POST"])
def otp_challenge(request: HttpRequest) -> HttpResponse:
    next_url = safe_next(request)
    user = request.user
    if not user.is_authenticated:
        return redirect(_with_next("identity:login", next_url))
    if _is_verified(request):
        return redirect(_destination(user, next_url))
    assert isinstance(user, Operator)
    if not otp.has_second_factor(user):
        return redirect(_with_next("identity:enroll", next_url))
    form = CodeForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            device = services.otp_verify(
                operator=user,
                code=form.cleaned_data["code"],
                ip=client_ip(request),
                purpose=services.OtpPurpose.LOGIN,
            )
        except services.OtpRefused as exc:
            error = exc.message
        else:
            otp_login(request, device)
            services.session_rotate(request.session)
            stepup.mark_verified(request.session)
            return redirect(_destination(user, next_url))
    return render(
        request, "identity/otp_challenge.html", {"form": form, "error": error, "next": next_url}
    )


def _enroll_page(
    request: HttpRequest, device: TOTPDevice, form: EnrollForm, next_url: str, error: str = ""
) -> HttpResponse:
    return render(
        request,
        "identity/enroll.html",
        {
            "form": form,
            "error": error,
            "next": next_url,
            "secret": otp.secret_b32(device),
            "qr_svg": otp.qr_svg(otp.provisioning_uri(device)),
        },
    )


@never_cache
@require_http_methods(["GET", "POST"])
def enroll(request: HttpRequest) -> HttpResponse:
    """First-login enrolment. Reachable with a password-only session, and only while the
    account has no authenticator: otherwise a stolen password could enrol a new phone."""
    next_url = safe_next(request)
    user = request.user
    if not user.is_authenticated:
        return redirect(_with_next("identity:login", next_url))
    assert isinstance(user, Operator)
    if otp.has_second_factor(user):
        return redirect(_with_next("identity:otp_challenge", next_url))
    device_id = request.session.get(ENROLL_SESSION_KEY)
    pending = TOTPDevice.objects.filter(pk=device_id, user=user, confirmed=False).first()
    if request.method == "GET" or request.POST.get("action") == "new_secret":
        # The secret on screen stays the same for this session's enrolment however often the
        # page is loaded (a reload, a second tab, the browser's own requests): the operator may
        # already have scanned it. It changes only when they ask for a new one.
        if pending is None or request.method == "POST":
            pending = services.operator_totp_enroll_start(operator=user)
            request.session[ENROLL_SESSION_KEY] = pending.pk
        if request.method == "POST":
            return redirect(_with_next("identity:enroll", next_url))
        return _enroll_page(request, pending, EnrollForm(), next_url)
    form = EnrollForm(request.POST)
    if pending is None:
        return redirect(_with_next("identity:enroll", next_url))
    if not form.is_valid():
        return _enroll_page(request, pending, form, next_url)
    try:
        device, codes = services.operator_totp_enroll_confirm(
            operator=user,
            device_id=pending.pk,
            code=form.cleaned_data["code"],
            ip=client_ip(request),
        )
    except services.OtpRefused as exc:
        return _enroll_page(request, pending, EnrollForm(), next_url, error=exc.message)
    except Conflict:
        return redirect(_with_next("identity:enroll", next_url))
    request.session.pop(ENROLL_SESSION_KEY, None)
    otp_login(request, device)
    services.session_rotate(request.session)
    stepup.mark_verified(request.session)
    return render(
        request,
        "identity/backup_codes.html",
        {"codes": codes, "next": _destination(user, next_url), "first_time": True},
    )


@never_cache
@require_http_methods(["GET", "POST"])
def stepup_view(request: HttpRequest) -> HttpResponse:
    """Re-challenge before a sensitive action, then back to where the operator was."""
    next_url = safe_next(request)
    user = request.user
    assert isinstance(user, Operator)
    form = CodeForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            services.otp_verify(
                operator=user,
                code=form.cleaned_data["code"],
                ip=client_ip(request),
                purpose=services.OtpPurpose.STEPUP,
            )
        except services.OtpRefused as exc:
            error = exc.message
        else:
            stepup.mark_verified(request.session)
            pending = stepup.pending_action_take(request.session)
            if pending is not None:
                return _carry_out(request, *pending)
            return redirect(next_url)
    return render(
        request,
        "identity/stepup.html",
        {
            "form": form,
            "error": error,
            "next": next_url,
            "action_waiting": stepup.PENDING_ACTION_SESSION_KEY in request.session,
        },
    )


def _carry_out(request: HttpRequest, path: str, fields: dict[str, list[str]]) -> HttpResponse:
    """Run the POST that the challenge interrupted, as this operator, now verified. The view
    decides and answers as it would have (its own message, its own redirect)."""
    try:
        match = resolve(path)
    except Resolver404:
        return redirect("home")
    data = QueryDict(mutable=True)
    for key, values in fields.items():
        data.setlist(str(key), [str(value) for value in values])
    request.method = "POST"
    request.POST = data  # type: ignore[assignment]
    request.path = request.path_info = path
    request.resolver_match = match
    messages.success(
        request,
        gettext("Code accepted: the action you started was submitted, with what you typed."),
    )
    return match.func(request, *match.args, **match.kwargs)


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        assert isinstance(request.user, Operator)
        services.logout_record(actor=request.user, session_key=request.session.session_key)
    auth_logout(request)
    return redirect("identity:login")


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """The header's language switch (a CSRF-protected POST). The choice goes into Django's
    language cookie, so the login page follows it too, and onto the operator, so it follows
    them to any browser they log in from."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        return HttpResponse(status=400)
    # A password-only session (second factor not yet given) gets the cookie but does not
    # write to the operator: every write to an account needs a verified session.
    user = request.user
    if _is_verified(request) and isinstance(user, Operator) and not user.is_service_principal:
        services.operator_language_set(actor=user, language=language)
    translation.activate(language)
    response = redirect(safe_next(request))
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=365 * 24 * 3600,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
    )
    return response
