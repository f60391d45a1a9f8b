import pytest

from evals.domains import get_domain


@pytest.fixture(scope="session")
def airline():
    return get_domain("airline")


@pytest.fixture(autouse=True)
def _roles() -> None:
    """Pure Python: no database, so the root conftest's role sync is skipped."""


def customer_of(world, profile: str, index: int = 0):
    """The index-th customer generated from a world profile, with their profile reservation."""
    from evals.domains.airline.population import CUSTOMERS_PER_PROFILE, PROFILES

    customers = list(world.tables["customers"].values())
    p = [p.name for p in PROFILES].index(profile)
    customer = customers[p * CUSTOMERS_PER_PROFILE + index]
    return customer, world.reservations_of(customer.id)[0]
