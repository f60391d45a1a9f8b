from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from identity import scopes
from identity.models import ActorType, CredentialKind, Operator, OperatorKind, Role


class LoginForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "username"}),
    )
    password = forms.CharField(
        strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )


class CodeForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=32,
        widget=forms.TextInput(
            attrs={
                "autofocus": True,
                "autocomplete": "one-time-code",
                "inputmode": "text",
                "spellcheck": "false",
            }
        ),
        help_text=gettext_lazy(
            "The 6-digit code from your authenticator app, or one of your backup codes."
        ),
    )


class EnrollForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Code from your app"),
        max_length=12,
        widget=forms.TextInput(
            attrs={"autofocus": True, "autocomplete": "one-time-code", "inputmode": "numeric"}
        ),
    )


class PasswordChangeForm(forms.Form):
    """Old password, the new one twice, and (except for the forced change right after a first
    login) a current one-time code. Django's password validators run in the service."""

    old_password = forms.CharField(
        label=gettext_lazy("Current password"),
        strip=False,
        max_length=4096,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password", "autofocus": True}),
    )
    new_password = forms.CharField(
        label=gettext_lazy("New password"),
        strip=False,
        max_length=4096,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=gettext_lazy(
            "At least 12 characters, not a common password, not only digits, and not like "
            "your username or name."
        ),
    )
    new_password_again = forms.CharField(
        label=gettext_lazy("New password, again"),
        strip=False,
        max_length=4096,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=32,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "text", "spellcheck": "false"}
        ),
        help_text=gettext_lazy(
            "The 6-digit code from your authenticator app, or one of your backup codes."
        ),
    )

    def __init__(self, *args: Any, forced: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if forced:
            del self.fields["code"]
            self.fields["old_password"].label = gettext_lazy("Temporary password")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        new, again = data.get("new_password"), data.get("new_password_again")
        if new and again and new != again:
            self.add_error("new_password_again", gettext_lazy("The two passwords differ."))
        return data


class CredentialResetRequestForm(forms.Form):
    """The reason for a password or two-factor reset; one per kind on an operator's page,
    told apart by the form prefix (the kind)."""

    reason = forms.CharField(label=gettext_lazy("Reason"), max_length=500, widget=forms.TextInput())

    HELP = {
        CredentialKind.TOTP: gettext_lazy(
            "Why the operator cannot use their app or backup codes, and how you checked it "
            "was them who asked. The approving admin reads this."
        ),
        CredentialKind.PASSWORD: gettext_lazy(
            "Why the operator cannot sign in with their password, and how you checked it was "
            "them who asked. The approving admin reads this."
        ),
    }

    def __init__(self, data: Any = None, *, kind: CredentialKind) -> None:
        super().__init__(data, prefix=str(kind))
        self.fields["reason"].help_text = self.HELP[kind]


def _role_choices() -> list[tuple[str, str]]:
    return [(str(value), str(label)) for value, label in Role.choices]


class RolesForm(forms.Form):
    roles = forms.MultipleChoiceField(
        choices=_role_choices, required=False, widget=forms.CheckboxSelectMultiple
    )


class OperatorCreateForm(forms.Form):
    username = forms.CharField(max_length=64)
    display_name = forms.CharField(max_length=150, required=False)
    email = forms.EmailField(required=False)
    kind = forms.ChoiceField(choices=OperatorKind.choices, initial=OperatorKind.HUMAN)
    roles = forms.MultipleChoiceField(
        choices=_role_choices, required=False, widget=forms.CheckboxSelectMultiple
    )


class TokenCreateForm(forms.Form):
    principal = forms.ModelChoiceField(queryset=Operator.objects.none())
    name = forms.CharField(max_length=100)
    scopes = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple)
    expires_at = forms.DateTimeField(
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        help_text=gettext_lazy("Leave empty for a token that lives until it is revoked."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["principal"].queryset = Operator.objects.filter(  # type: ignore[attr-defined]
            kind=OperatorKind.SERVICE, is_active=True
        )
        self.fields["scopes"].choices = [  # type: ignore[attr-defined]
            (name, f"{name} — {description}") for name, description in scopes.known().items()
        ]


class AuditFilterForm(forms.Form):
    actor = forms.CharField(
        label=gettext_lazy("Actor"),
        required=False,
        max_length=150,
        help_text=gettext_lazy("Name or its beginning, any case"),
    )
    actor_type = forms.ChoiceField(
        label=gettext_lazy("Actor type"),
        choices=[("", gettext_lazy("Any")), *ActorType.choices],
        required=False,
    )
    action = forms.CharField(
        label=gettext_lazy("Action"),
        required=False,
        max_length=80,
        help_text=gettext_lazy("Action or its beginning, any case (refund.)"),
    )
    target_type = forms.CharField(label=gettext_lazy("Target type"), required=False, max_length=80)
    target_id = forms.CharField(label=gettext_lazy("Target id"), required=False, max_length=80)
    since = forms.DateTimeField(
        label=gettext_lazy("Since"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    until = forms.DateTimeField(
        label=gettext_lazy("Until"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
