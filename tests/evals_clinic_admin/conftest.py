import pytest

from evals.domains import get_domain


@pytest.fixture(scope="session")
def clinic():
    return get_domain("clinic_admin")


def patients(world, *, minor: bool):
    return [p for p in world.tables["patients"].values() if p.minor is minor]
