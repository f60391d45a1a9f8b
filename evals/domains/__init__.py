"""Domains by name, imported lazily (importing one domain never imports the others).

Each entry maps a domain name to a module exposing `load() -> evals.engine.domain.Domain`.
Add a domain with one line in `BUILTIN` or `register_domain(name, module)` at run time.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading

from evals.engine.domain import Domain
from evals.engine.errors import EngineError

BUILTIN: dict[str, str] = {
    "retail": "evals.domains.retail",
    "membership": "evals.domains.membership",
    "airline": "evals.domains.airline",
    "tau2_retail": "evals.domains.tau2_retail",
    "tau2_mock": "evals.domains.tau2_mock",
    "billing": "evals.domains.billing",
    "clinic_admin": "evals.domains.clinic_admin",
    "telecom": "evals.domains.telecom",
}

_modules: dict[str, str] = dict(BUILTIN)
_loaded: dict[str, Domain] = {}
_lock = threading.Lock()


def register_domain(name: str, module: str) -> None:
    with _lock:
        if name in _modules:
            raise EngineError(f"Domain {name!r} is already registered")
        _modules[name] = module


def domain_names(*, available_only: bool = True) -> list[str]:
    """Registered domain names; with `available_only`, those whose module exists."""
    names = sorted(_modules)
    if not available_only:
        return names
    return [n for n in names if importlib.util.find_spec(_modules[n]) is not None]


def get_domain(name: str) -> Domain:
    with _lock:
        if name in _loaded:
            return _loaded[name]
        if name not in _modules:
            raise EngineError(f"Unknown domain {name!r}; known: {', '.join(sorted(_modules))}")
        module = importlib.import_module(_modules[name])
        domain: Domain = module.load()
        _loaded[name] = domain
        return domain
