"""Shared fixtures: the persona operators every permission test is written against.

Alice is an agent, Bob an approver, Sam a supervisor, Ada an admin, Audrey an auditor,
Rita a release manager, Olga an outsider with no role, and `service` the AI agent's runtime
(a service principal with an API token).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from django.test import Client
from django.utils import translation
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.test import APIClient

from backoffice import i18n
from identity import roles, tokens
from identity.models import ApiToken, Operator, OperatorKind, Role
from identity.stepup import mark_verified
from tests.celery_workers import live_celery  # noqa: F401 - the fixture, for every test

PASSWORD = "correct horse battery staple"


def pytest_configure(config: pytest.Config) -> None:
    # The .mo catalogues are build output (not in git): compile them in Python before any
    # test renders a page, so a plain `pytest` on a fresh checkout sees the translations.
    i18n.compile_catalogues(Path(__file__).resolve().parent.parent / "locale")


# Fixtures through which a test reaches the database; `live_server` gives its test a
# transactional database (pytest-django requests it at run time, not in the closure).
DB_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With PYTEST_DATABASE_TESTS_ONLY=1 (the PostgreSQL leg of .ci/run), keep only the tests
    that reach the database: a django_db marker, a database fixture (DB_FIXTURES, live_server
    included) or the `postgres` marker (tests that start a cluster of their own). The others
    (the engine's, the domains', pure helpers') run no SQL, so they behave the same on every
    backend and have already run in the SQLite leg."""
    if os.environ.get("PYTEST_DATABASE_TESTS_ONLY") != "1":
        return
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        reaches = (
            item.get_closest_marker("django_db") is not None
            or item.get_closest_marker("postgres") is not None
            or bool(DB_FIXTURES & set(getattr(item, "fixturenames", ())))
        )
        (kept if reaches else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(autouse=True)
def _roles(request: pytest.FixtureRequest) -> None:
    """The roles and their permissions, for every test that uses the database. A test that
    does not (the engine's, the domains', the pure helpers') gets no database at all: setting
    one up for it cost about half the engine tests' time."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None and not DB_FIXTURES & set(request.fixturenames):
        return
    transactional = bool({"transactional_db", "live_server"} & set(request.fixturenames)) or bool(
        marker is not None and marker.kwargs.get("transaction")
    )
    request.getfixturevalue("transactional_db" if transactional else "db")
    roles.sync_roles()


@pytest.fixture(autouse=True)
def _language_reset() -> Iterator[None]:
    """Each test starts and ends in the default language: a request through the test client
    leaves its language active in the thread (LocaleMiddleware), and a later test storing
    text in-process would store it in that language."""
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def make_operator(db: None) -> Callable[..., Operator]:
    def make(username: str, role_list: Iterable[str] = (), *, totp: bool = True) -> Operator:
        operator = Operator.objects.create_user(
            username=username,
            email=f"{username}@example.test",
            password=PASSWORD,
            display_name=username.capitalize(),
        )
        for role in role_list:
            roles.grant(operator, role)
        if totp:
            TOTPDevice.objects.create(user=operator, name="default", confirmed=True)
        return operator

    return make


def verified_client(operator: Operator, *, stepped_up: bool = True, api: bool = False) -> Client:
    """A client whose session passed password and OTP (and, by default, a fresh step-up)."""
    client: Client = APIClient() if api else Client()
    client.force_login(operator)
    device = TOTPDevice.objects.filter(user=operator, confirmed=True).first()
    assert device is not None, "verified_client needs an operator with a confirmed TOTP device"
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    if stepped_up:
        mark_verified(session)
    session.save()
    return client


@pytest.fixture
def alice(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("alice", [Role.AGENT])


@pytest.fixture
def bob(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("bob", [Role.APPROVER])


@pytest.fixture
def sam(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("sam", [Role.SUPERVISOR])


@pytest.fixture
def ada(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("ada", [Role.ADMIN])


@pytest.fixture
def audrey(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("audrey", [Role.AUDITOR])


@pytest.fixture
def rita(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("rita", [Role.RELEASE_MANAGER])


@pytest.fixture
def olga(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator("olga")


def make_service_token(
    scopes: Iterable[str], username: str = "agent-runtime"
) -> tuple[Operator, str]:
    principal, _ = Operator.objects.get_or_create(
        username=username,
        defaults={"kind": OperatorKind.SERVICE, "display_name": "AI agent runtime"},
    )
    principal.set_unusable_password()
    principal.save()
    raw, prefix, token_hash = tokens.generate()
    ApiToken.objects.create(
        operator=principal, name="test", prefix=prefix, token_hash=token_hash, scopes=list(scopes)
    )
    return principal, raw


def token_client(raw_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_token}")
    return client
