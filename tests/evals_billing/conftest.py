import pytest

from evals.domains import get_domain
from evals.domains.billing.tasks import WORLD_SEED


@pytest.fixture(scope="session")
def billing():
    return get_domain("billing")


@pytest.fixture
def world(billing):
    return billing.fresh_world(WORLD_SEED)


def customer_in(world, currency: str, index: int = 0, mode: str = "live"):
    """The index-th customer of `mode` whose charges are in `currency`."""
    found = [
        c
        for c in world.tables["customers"].values()
        if c.mode == mode and world.charges_of(c.id)[0].currency == currency
    ]
    return found[index]


def charge_of(world, customer, role: str):
    from evals.domains.billing.world import ROLE_NAMES

    return world.tables["charges"][f"CH-{customer.id[1:]}{ROLE_NAMES.index(role)}"]
