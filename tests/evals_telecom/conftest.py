from functools import partial

from evals.domains import get_domain
from evals.domains.telecom.population import PER_PROFILE, PROFILES
from evals.domains.telecom.tools import TOOLS
from evals.domains.telecom.world import TelecomWorld
from tests.support import tool_kit

DOMAIN = get_domain("telecom")


def world_of(profile: str, n: int = 0) -> TelecomWorld:
    """A fresh world whose phone is that of the n-th customer of `profile`."""
    index = [p.name for p in PROFILES].index(profile) * PER_PROFILE + n
    world = DOMAIN.fresh_world(index + 1)
    assert isinstance(world, TelecomWorld)
    return world


def customer_of(world: TelecomWorld):
    line = world.tables["lines"][world.device().line_id]
    return world.tables["customers"][line.customer_id], line


call = partial(tool_kit.call, TOOLS)
ok = partial(tool_kit.ok, TOOLS)
