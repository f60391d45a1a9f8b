"""Finding 7 (Low), the schema's part: no security schemes were declared (drf_spectacular
W001, 64 times), so a client or a schema-driven tester could not tell that every endpoint needs a
bearer token or a verified session. Every operation must now name one of the two."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator

from tests.conftest import verified_client


def test_every_operation_requires_a_token_or_a_verified_session() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    schemes = schema["components"]["securitySchemes"]
    assert schemes["apiToken"]["scheme"] == "bearer"
    assert schemes["verifiedSession"]["in"] == "cookie"
    operations = [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    ]
    assert len(operations) > 20
    for path, method, operation in operations:
        names = {name for requirement in operation.get("security", []) for name in requirement}
        assert names == {"apiToken", "verifiedSession"}, (method, path, names)


def test_every_operation_documents_its_error_responses_in_the_error_shape() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            codes = set(operation["responses"])
            expected = {"400", "401", "403"} | ({"404"} if "{" in path else set())
            assert expected <= codes, (method, path, sorted(codes))
            body = operation["responses"]["400"]["content"]["application/json"]["schema"]
            assert body["$ref"].rsplit("/", 1)[-1] in {"ApiError", "Error"}, (method, path)


@pytest.mark.django_db
def test_every_list_the_schema_calls_a_page_answers_a_page(request) -> None:
    """The schema documents lists as StandardPagination pages (backoffice.schema); call each
    one as a persona allowed to read it and hold the answer to that shape."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    lists = [
        path
        for path, item in schema["paths"].items()
        if "get" in item
        and item["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        .get("$ref", "")
        .rsplit("/", 1)[-1]
        .startswith("Paginated")
    ]
    assert len(lists) >= 6
    clients = [
        verified_client(request.getfixturevalue(name), api=True)
        for name in ("sam", "audrey", "rita", "alice", "bob")
    ]
    for path in lists:
        answers = [client.get(path) for client in clients]
        ok = [a for a in answers if a.status_code == 200]
        assert ok, (path, [a.status_code for a in answers])
        for answer in ok:
            assert set(answer.json()) == {"count", "next", "previous", "results"}, path


def test_check_deploy_is_clean_for_a_production_configuration(tmp_path) -> None:
    """Production settings from the environment (as docs/deployment.md gives them): Django's
    deployment checks and drf-spectacular's schema checks report nothing."""
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "ALLOWED_HOSTS": "backoffice.example",
        "SECURE_SSL_REDIRECT": "1",
        "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
        "SECURE_HSTS_PRELOAD": "1",
        "VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "backoffice.settings",
    }
    env.pop("DATABASE_URL", None)
    # Set by the browser tests' conftest in this process; a deployment never sets it.
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "no issues" in result.stdout
