from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connections, router
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request

from identity import otp, tokens
from identity.models import ApiToken, Operator

# The token and its operator in one statement, by the token's unique prefix. Hand-written:
# it runs on every token-authenticated request (every refund and escalation), and through
# the ORM it cost over a tenth of a refund request's CPU (docs/performance.md). Every name
# comes from the models.
_TOKEN_FIELDS = [f.attname for f in ApiToken._meta.concrete_fields]
_OPERATOR_FIELDS = [f.attname for f in Operator._meta.concrete_fields]


_SQL: dict[str, str] = {}


def _token_sql(connection: Any) -> str:
    sql = _SQL.get(connection.vendor)
    if sql is not None:
        return sql
    quote = connection.ops.quote_name
    token_columns = [f"t.{quote(f.column)}" for f in ApiToken._meta.concrete_fields]
    operator_columns = [f"o.{quote(f.column)}" for f in Operator._meta.concrete_fields]
    sql = _SQL[connection.vendor] = (
        f"SELECT {', '.join(token_columns + operator_columns)} "  # noqa: S608 - model names
        f"FROM {quote(ApiToken._meta.db_table)} t "
        f"JOIN {quote(Operator._meta.db_table)} o ON o.{quote(Operator._meta.pk.column)} "
        f"= t.{quote(ApiToken._meta.get_field('operator').column)} "
        f"WHERE t.{quote(ApiToken._meta.get_field('prefix').column)} = %s"
    )
    return sql


def token_by_prefix(prefix: str) -> ApiToken | None:
    """The ApiToken with this prefix, its operator loaded, or None."""
    alias = router.db_for_read(ApiToken)
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(_token_sql(connection), [prefix])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(_TOKEN_FIELDS)
    token = ApiToken.from_db(alias, _TOKEN_FIELDS, _converted(ApiToken, row[:split], connection))
    operator = Operator.from_db(
        alias, _OPERATOR_FIELDS, _converted(Operator, row[split:], connection)
    )
    token.operator = operator
    return token


_CONVERTERS: dict[tuple[str, str], list[tuple[Any, list[Any]]]] = {}


def _converted(model: Any, values: tuple[Any, ...], connection: Any) -> list[Any]:
    """Apply each column's database converters (JSON text to lists, SQLite datetimes...),
    exactly as the ORM's compiler does when it loads a row."""
    key = (connection.alias, model._meta.label)
    converters = _CONVERTERS.get(key)
    if converters is None:
        converters = []
        for field in model._meta.concrete_fields:
            col = field.get_col(model._meta.db_table)
            found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
            converters.append((col, found))
        _CONVERTERS[key] = converters
    out = []
    for value, (col, found) in zip(values, converters, strict=True):
        for converter in found:
            value = converter(value, col, connection)
        out.append(value)
    return out


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer bo_…` for service principals. request.auth is the ApiToken."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header.startswith(f"{self.keyword} "):
            return None
        raw = header[len(self.keyword) + 1 :].strip()
        prefix = tokens.parse_prefix(raw)
        if prefix is None:
            raise exceptions.AuthenticationFailed("Invalid API token.")
        token = token_by_prefix(prefix)
        now = timezone.now()
        if (
            token is None
            or not tokens.matches(raw, token.token_hash)
            or token.revoked_at is not None
            or (token.expires_at is not None and token.expires_at <= now)
            or not token.operator.is_active
        ):
            raise exceptions.AuthenticationFailed("Invalid API token.")
        # Bounded write: at most one last-used update per token per minute.
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.operator, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class VerifiedSessionAuthentication(authentication.SessionAuthentication):
    """Session auth that only counts sessions verified with a second factor."""

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        result = super().authenticate(request)
        if result is None:
            return None
        user = result[0]
        if not otp.session_verified(request._request.user):
            return None
        if getattr(user, "must_change_password", False):
            # Imported here: backoffice.errors imports DRF, whose settings import this module.
            from backoffice.errors import PasswordChangeRequired

            raise PasswordChangeRequired(
                gettext("Set your own password in the backoffice before using the API.")
            )
        return user, None


class HumanSessionOnly(permissions.BasePermission):
    """Permission class: a human operator signed in with a session (no token, not a service
    principal): the ones who work tickets in the backoffice. What they may do to a given
    ticket is then the app's access.py's to decide."""

    message = "Only operators signed in to the backoffice may do this."

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(
            user
            and user.is_authenticated
            and request.auth is None
            and not getattr(user, "is_service_principal", False)
        )


def scoped(*required: str) -> type[permissions.BasePermission]:
    """Permission class: token callers need every scope listed; a verified human session
    passes here and is judged by the view's role check (access.py)."""

    class HasScopes(permissions.BasePermission):
        message = f"This API token lacks the scope(s): {', '.join(required)}."

        def has_permission(self, request: Request, view: Any) -> bool:
            if not (request.user and request.user.is_authenticated):
                return False
            auth = request.auth
            if isinstance(auth, ApiToken):
                return all(auth.has_scope(scope) for scope in required)
            return not getattr(request.user, "is_service_principal", False)

    HasScopes.__name__ = f"HasScopes[{','.join(required)}]"
    return HasScopes


def allowed(
    *, human: Callable[[Any], bool], scopes: tuple[str, ...] = ()
) -> type[permissions.BasePermission]:
    """Permission class for one operation: a human (verified session, no token) passes when
    `human(user)` says so (the app's access.py decides); a token caller only when its token
    holds one of `scopes`, and with none listed no token passes. A service principal never
    passes as a human."""

    class Allowed(permissions.BasePermission):
        def has_permission(self, request: Request, view: Any) -> bool:
            user = request.user
            if not (user and user.is_authenticated):
                return False
            auth = request.auth
            if isinstance(auth, ApiToken):
                return any(auth.has_scope(scope) for scope in scopes)
            return not getattr(user, "is_service_principal", False) and human(user)

    Allowed.__name__ = f"Allowed[{','.join(scopes)}]"
    return Allowed
