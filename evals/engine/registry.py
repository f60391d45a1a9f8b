"""Agents and user simulators addressable by name, like any model.

Exact names (`sandbox/reference`, `sandbox/scripted`) are registered here; families of names
are handled by resolvers keyed by prefix (`python:` for `python:module:function`, and the
empty prefix as the fallback that treats any other name as a LiteLLM model). The longest
matching prefix wins. Registering a name or prefix twice is an error.

Plugins register themselves when imported; `PLUGIN_MODULES` lists the modules imported on
first lookup (a missing plugin module is skipped, so the engine works before it exists).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from typing import Any

from evals.engine.errors import EngineError
from evals.engine.protocols import Agent, AgentFactory, UserFactory, UserSimulator

PLUGIN_MODULES: tuple[str, ...] = ("evals.engine.adapters",)

AgentResolver = Callable[[str], AgentFactory]
UserResolver = Callable[[str], UserFactory]

_agents: dict[str, AgentFactory] = {}
_users: dict[str, UserFactory] = {}
_agent_resolvers: dict[str, AgentResolver] = {}
_user_resolvers: dict[str, UserResolver] = {}
_plugins_loaded = False
_lock = threading.Lock()
# Re-entrant: a plugin registers its names (taking `_lock`) while it is being imported under
# `_plugin_lock`, and may itself look names up.
_plugin_lock = threading.RLock()


def _add(table: dict[str, Any], key: str, value: Any, what: str) -> None:
    with _lock:
        if key in table:
            raise EngineError(f"{what} {key!r} is already registered")
        table[key] = value


def register_agent(name: str, factory: AgentFactory) -> None:
    _add(_agents, name, factory, "Agent")


def register_user(name: str, factory: UserFactory) -> None:
    _add(_users, name, factory, "User simulator")


def register_agent_resolver(prefix: str, resolver: AgentResolver) -> None:
    _add(_agent_resolvers, prefix, resolver, "Agent name prefix")


def register_user_resolver(prefix: str, resolver: UserResolver) -> None:
    _add(_user_resolvers, prefix, resolver, "User simulator name prefix")


def _load_plugins() -> None:
    """Import the plugin modules once. Every thread that looks a name up before they are
    imported waits here until the import has finished (and the plugins have registered);
    the flag is set only afterwards, so no thread sees a half-loaded registry."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    with _plugin_lock:
        if _plugins_loaded:
            return  # another thread finished while this one waited
        for module in PLUGIN_MODULES:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
        _plugins_loaded = True


def _resolve(name: str, exact: Mapping[str, Any], resolvers: Mapping[str, Any], what: str) -> Any:
    _load_plugins()
    if name in exact:
        return exact[name]
    for prefix in sorted(resolvers, key=len, reverse=True):
        if name.startswith(prefix):
            return resolvers[prefix](name)
    known = ", ".join(sorted(exact)) or "none"
    raise EngineError(f"Unknown {what} {name!r}; registered: {known}")


def agent_factory(name: str) -> AgentFactory:
    return _resolve(name, _agents, _agent_resolvers, "agent")


def user_factory(name: str) -> UserFactory:
    return _resolve(name, _users, _user_resolvers, "user simulator")


def agent_names() -> list[str]:
    _load_plugins()
    return sorted(_agents)


def user_names() -> list[str]:
    _load_plugins()
    return sorted(_users)


def name_prefix(name: str, *, user: bool = False) -> str | None:
    """How `name` resolves: None for an exact registered name, else the prefix of the
    resolver that takes it ("" is the LiteLLM fallback: any other name is a model), or None
    too when nothing would (an unknown name with no fallback registered)."""
    _load_plugins()
    exact, resolvers = (_users, _user_resolvers) if user else (_agents, _agent_resolvers)
    if name in exact:
        return None
    for prefix in sorted(resolvers, key=len, reverse=True):
        if name.startswith(prefix):
            return prefix
    return None


# -- the offline sandbox models: each domain supplies how they speak it --------------------


def _sandbox_reference(*, domain: Any, params: Mapping[str, Any], seed: int) -> Agent:
    if domain.reference_agent is None:
        raise EngineError(f"Domain {domain.name} has no sandbox/reference agent")
    return domain.reference_agent(domain=domain, params=params, seed=seed)


def _sandbox_scripted(
    *, domain: Any, scenario: Any, persona: Any, params: Mapping[str, Any], seed: int
) -> UserSimulator:
    if domain.scripted_user is None:
        raise EngineError(f"Domain {domain.name} has no sandbox/scripted user")
    return domain.scripted_user(
        domain=domain, scenario=scenario, persona=persona, params=params, seed=seed
    )


register_agent("sandbox/reference", _sandbox_reference)
register_user("sandbox/scripted", _sandbox_scripted)

# The fault-injected and adversarial agents register themselves; imported here so their
# names always resolve.
import evals.engine.adversaries  # noqa: E402
import evals.engine.faults  # noqa: E402, F401
