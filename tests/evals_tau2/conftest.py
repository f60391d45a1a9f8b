import pytest

from tests.support.openai_server import openai_server  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def _roles() -> None:
    """The engine is pure Python: no database, so the root conftest's role sync is skipped."""
