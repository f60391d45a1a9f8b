"""`identity.authentication.allowed`, the one permission factory of the payments and go-live
APIs: humans pass by the app's role check, token callers only by a listed scope, and a service
principal never passes as a human. The actors: an operator with and without the role, a
service principal's token with the right scope, another scope or none, the same principal
without its token, and an anonymous caller."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from identity.authentication import allowed
from identity.models import ApiToken, Operator, OperatorKind

Permission = allowed(human=lambda user: user.username == "approver", scopes=("a:run", "a:read"))


def request(user: Any, auth: Any = None) -> Any:
    return SimpleNamespace(user=user, auth=auth)


def operator(username: str, kind: str = OperatorKind.HUMAN) -> Operator:
    return Operator(username=username, kind=kind)


def token(*scopes: str) -> ApiToken:
    return ApiToken(operator=operator("agent", OperatorKind.SERVICE), scopes=list(scopes))


def passes(req: Any, permission: Any = Permission) -> bool:
    return bool(permission().has_permission(req, view=None))


def test_a_human_passes_by_the_apps_role_check() -> None:
    assert passes(request(operator("approver")))
    assert not passes(request(operator("agent-operator")))


def test_a_token_passes_with_any_listed_scope_and_only_then() -> None:
    service = operator("agent", OperatorKind.SERVICE)
    assert passes(request(service, token("a:read")))
    assert passes(request(service, token("a:run")))
    assert not passes(request(service, token("b:read")))
    assert not passes(request(service, token()))


def test_a_token_never_passes_where_no_scope_is_listed() -> None:
    humans_only = allowed(human=lambda user: True)
    service = operator("agent", OperatorKind.SERVICE)
    assert not passes(request(service, token("a:run")), humans_only)


def test_a_service_principal_without_its_token_is_not_a_human() -> None:
    # Its role check would say yes: the factory refuses it before asking.
    assert not passes(request(operator("approver", OperatorKind.SERVICE)))


def test_an_anonymous_caller_is_refused() -> None:
    anonymous = SimpleNamespace(is_authenticated=False)
    assert not passes(request(anonymous))
    assert not passes(request(None))
