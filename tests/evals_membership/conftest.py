import pytest

from evals.domains import get_domain


@pytest.fixture(scope="session")
def membership():
    return get_domain("membership")


def member_of(world, profile: str, index: int = 0):
    """The index-th member generated from a world profile (see world.PROFILES)."""
    from evals.domains.membership.population import MEMBERS_PER_PROFILE, PROFILES

    members = list(world.tables["members"].values())
    p = [p.name for p in PROFILES].index(profile)
    return members[p * MEMBERS_PER_PROFILE + index]
