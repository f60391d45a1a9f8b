"""The user-side assertions a telecom task may name (Task.assertions): the phone's state at the end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.domains.telecom.world import (
    app_data_allowed,
    data_works,
    signal,
)


def assert_service(world: Any) -> bool:
    return signal(world) == "4 bars"


def assert_mobile_data(world: Any) -> bool:
    return data_works(world)


def assert_app_data(world: Any, app: str) -> bool:
    return data_works(world) and app_data_allowed(world, app)


ASSERTIONS: dict[str, Callable[..., bool]] = {
    "phone_has_service": assert_service,
    "phone_mobile_data_works": assert_mobile_data,
    "app_can_use_mobile_data": assert_app_data,
}
