"""API token scopes. Each app registers the scopes its API checks (with
`identity.authentication.scoped("...")`) in its AppConfig.ready(); token creation accepts
only registered scopes, so a typo cannot mint a token that silently does nothing."""

from __future__ import annotations

import re

SCOPE_RE = re.compile(r"^[a-z][a-z0-9_]*:[a-z][a-z0-9_.]*$")

_scopes: dict[str, str] = {}


def register(name: str, description: str) -> None:
    if not SCOPE_RE.match(name):
        raise ValueError(f"Scope names look like 'tickets:escalate', not {name!r}.")
    if name in _scopes and _scopes[name] != description:
        raise ValueError(f"Scope {name!r} is already registered with another description.")
    _scopes[name] = description


def known() -> dict[str, str]:
    return dict(sorted(_scopes.items()))


def is_known(name: str) -> bool:
    return name in _scopes
