"""The home page is a set of panels contributed by the apps, each visible to the roles it
concerns. An app registers a panel provider in its AppConfig.ready(); the dashboard does not
import the apps, so adding one never touches this module."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Panel:
    title: str
    url: str = ""
    figures: list[tuple[str, Any]] = field(default_factory=list)
    lines: list[tuple[str, str]] = field(default_factory=list)
    # A short word beside the title (e.g. the payments mode) and its badge class.
    marker: str = ""
    marker_class: str = ""


PanelProvider = Callable[[Any], Panel | None]
_providers: dict[str, PanelProvider] = {}


def register(name: str, provider: PanelProvider) -> None:
    if name in _providers and _providers[name] is not provider:
        raise ValueError(f"A dashboard panel named {name!r} is already registered.")
    _providers[name] = provider


def panels_for(user: Any) -> list[Panel]:
    panels = []
    for provider in _providers.values():
        panel = provider(user)
        if panel is not None:
            panels.append(panel)
    return panels
