"""Operator administration and service principals' API tokens (admins only)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from backoffice.errors import DomainError
from backoffice.request_operator import request_operator
from identity import otp, selectors, services
from identity.forms import (
    CredentialResetRequestForm,
    OperatorCreateForm,
    RolesForm,
    TokenCreateForm,
)
from identity.models import ApiToken, CredentialKind, CredentialResetRequest, Operator
from identity.stepup import stepup_required
from identity.views.common import admin_required


def _apply_field_errors(form: OperatorCreateForm | TokenCreateForm, exc: DomainError) -> None:
    for field, errors in exc.fields.items():
        for error in errors:
            form.add_error(field if field in form.fields else None, error)
    if not exc.fields:
        form.add_error(None, exc.message)


@require_GET
@admin_required
def operator_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "identity/operator_list.html",
        {
            "operators": selectors.operator_list(),
            "resets": selectors.credential_reset_open_list(),
        },
    )


def _reset_panel(actor: Operator, operator: Operator, kind: CredentialKind) -> dict[str, Any]:
    """One card of the operator's page: the open reset of `kind` (who asked, when it lapses,
    whether this admin may approve it), or the form to ask for one."""
    reset = selectors.credential_reset_open_for(operator=operator).get(kind)
    return {
        "kind": str(kind),
        "reset": reset,
        "expires_at": selectors.credential_reset_expires_at(reset) if reset else None,
        "refusal": services.approval_refusal(actor=actor, reset=reset) if reset else "",
        "form": CredentialResetRequestForm(kind=kind),
    }


@require_GET
@admin_required
def operator_detail(request: HttpRequest, pk: int) -> HttpResponse:
    operator = selectors.operator_get(pk=pk)
    actor = request_operator(request)
    return render(
        request,
        "identity/operator_detail.html",
        {
            "totp_reset": _reset_panel(actor, operator, CredentialKind.TOTP),
            "password_reset": _reset_panel(actor, operator, CredentialKind.PASSWORD),
            "operator": operator,
            "roles_form": RolesForm(initial={"roles": sorted(operator.role_names())}),
            "totp": otp.confirmed_totp(operator),
            "backup_codes_left": otp.backup_codes_left(operator),
            "sessions": selectors.session_list_for_operator(operator=operator),
            "tokens": operator.api_tokens.all() if operator.is_service_principal else [],
        },
    )


@require_http_methods(["GET", "POST"])
@admin_required
@stepup_required
def operator_create(request: HttpRequest) -> HttpResponse:
    form = OperatorCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            operator, temporary = services.operator_create(
                actor=request_operator(request), **form.cleaned_data
            )
        except DomainError as exc:
            _apply_field_errors(form, exc)
        else:
            return render(
                request,
                "identity/operator_created.html",
                {"operator": operator, "password": temporary},
            )
    return render(request, "identity/operator_create.html", {"form": form})


def _act(request: HttpRequest, pk: int, done: str, action: str) -> HttpResponse:
    operator = selectors.operator_get(pk=pk)
    actor = request_operator(request)
    try:
        if action == "roles":
            form = RolesForm(request.POST)
            if not form.is_valid():
                messages.error(request, gettext("Choose valid roles."))
                return redirect("identity:operator_detail", pk=pk)
            services.operator_roles_set(
                actor=actor, operator=operator, roles=form.cleaned_data["roles"]
            )
        elif action == "force_logout":
            services.operator_force_logout(actor=actor, operator=operator)
        elif action in CredentialKind.values:
            kind = CredentialKind(action)
            reset_form = CredentialResetRequestForm(request.POST, kind=kind)
            if not reset_form.is_valid():
                messages.error(request, gettext("Say why the reset is needed."))
                return redirect("identity:operator_detail", pk=pk)
            services.credential_reset_request(
                actor=actor, operator=operator, kind=kind, reason=reset_form.cleaned_data["reason"]
            )
        else:
            services.operator_deactivate(actor=actor, operator=operator)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect("identity:operator_detail", pk=pk)


@require_POST
@admin_required
@stepup_required
def operator_roles(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, gettext("Roles updated."), "roles")


@require_POST
@admin_required
@stepup_required
def operator_force_logout(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request, pk, gettext("All sessions of this operator were signed out."), "force_logout"
    )


@require_POST
@admin_required
@stepup_required
def operator_reset_2fa(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        gettext("Reset requested. Another admin must approve it before anything changes."),
        CredentialKind.TOTP,
    )


@require_POST
@admin_required
@stepup_required
def operator_reset_password(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        gettext(
            "Password reset requested. Another admin must approve it; they alone see the "
            "temporary password."
        ),
        CredentialKind.PASSWORD,
    )


@require_POST
@admin_required
@stepup_required
def credential_reset_approve(request: HttpRequest, pk: int) -> HttpResponse:
    """The second admin's approval (four eyes); see identity.services.credential_resets. A
    password reset's temporary password is shown here, once, to this admin only."""
    reset = get_object_or_404(CredentialResetRequest, pk=pk)
    try:
        temporary = services.credential_reset_approve(actor=request_operator(request), reset=reset)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("identity:operator_detail", pk=reset.operator_id)
    if temporary is not None:
        return render(
            request,
            "identity/password_reset_done.html",
            {"operator": reset.operator, "password": temporary},
        )
    messages.success(
        request, gettext("Two-factor reset: the operator enrols again after their next password.")
    )
    return redirect("identity:operator_detail", pk=reset.operator_id)


@require_POST
@admin_required
def credential_reset_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    reset = get_object_or_404(CredentialResetRequest, pk=pk)
    try:
        services.credential_reset_cancel(actor=request_operator(request), reset=reset)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, gettext("Reset request cancelled."))
    return redirect("identity:operator_detail", pk=reset.operator_id)


@require_POST
@admin_required
def operator_deactivate(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, gettext("Account deactivated."), "deactivate")


@require_GET
@admin_required
def token_list(request: HttpRequest) -> HttpResponse:
    return render(request, "identity/token_list.html", {"tokens": selectors.api_token_list()})


@require_http_methods(["GET", "POST"])
@admin_required
@stepup_required
def token_create(request: HttpRequest) -> HttpResponse:
    form = TokenCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            token, raw = services.api_token_create(
                actor=request_operator(request),
                principal=data["principal"],
                name=data["name"],
                scopes=data["scopes"],
                expires_at=data["expires_at"],
            )
        except DomainError as exc:
            _apply_field_errors(form, exc)
        else:
            return render(request, "identity/token_created.html", {"token": token, "raw": raw})
    return render(request, "identity/token_create.html", {"form": form})


@require_POST
@admin_required
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk)
    try:
        services.api_token_revoke(actor=request_operator(request), token=token)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, gettext("Token %(name)s revoked.") % {"name": token.name})
    return redirect("identity:token_list")
