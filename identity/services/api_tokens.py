"""API tokens of service principals: created (shown once) and revoked."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict, ValidationFailed
from identity import scopes as scope_registry
from identity import tokens
from identity.audit import audit_record
from identity.models import ApiToken, Operator


def api_token_create(
    *,
    actor: Operator | None,
    principal: Operator,
    name: str,
    scopes: Iterable[str],
    expires_at: dt.datetime | None = None,
) -> tuple[ApiToken, str]:
    """Issue a token for a service principal. Returns (token row, raw token); the raw token
    is never stored and cannot be shown again."""
    name = name.strip()
    scope_list = sorted(set(scopes))
    errors: dict[str, list[str]] = {}
    if not name:
        errors["name"] = ["Give the token a name that says where it is used."]
    if not scope_list:
        errors["scopes"] = ["Choose at least one scope."]
    unknown = [s for s in scope_list if not scope_registry.is_known(s)]
    if unknown:
        errors["scopes"] = [f"Unknown scope {s!r}." for s in unknown]
    if expires_at is not None and expires_at <= timezone.now():
        errors["expires_at"] = ["The expiry must be in the future."]
    if errors:
        raise ValidationFailed(gettext("The token request is not valid."), fields=errors)
    if not principal.is_service_principal:
        raise Conflict(
            gettext("API tokens are for service principals; operators sign in with 2FA.")
        )
    if not principal.is_active:
        raise Conflict(gettext("This service principal is deactivated."))
    raw, prefix, token_hash = tokens.generate()
    with transaction.atomic():
        token = ApiToken.objects.create(
            operator=principal,
            name=name,
            prefix=prefix,
            token_hash=token_hash,
            scopes=scope_list,
            created_by=actor,
            expires_at=expires_at,
        )
        audit_record(
            actor=actor,
            action="api_token.create",
            target=token,
            after={
                "principal": principal.username,
                "name": name,
                "prefix": prefix,
                "scopes": scope_list,
                "expires_at": expires_at,
            },
        )
    return token, raw


def api_token_revoke(*, actor: Operator, token: ApiToken) -> None:
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().get(pk=token.pk)
        if token.revoked_at is not None:
            raise Conflict(gettext("This token is already revoked."))
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        audit_record(
            actor=actor,
            action="api_token.revoke",
            target=token,
            before={"revoked_at": None},
            after={"revoked_at": token.revoked_at, "prefix": token.prefix},
        )
