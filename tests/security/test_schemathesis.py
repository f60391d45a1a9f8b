"""schemathesis against the API schema, with each role's credentials: every operation gets
generated requests, valid and invalid, as each demo role (a verified session) and as the AI
agent's runtime (a token with every scope). No answer may be a 5xx, and every answer must be
one the schema documents (status code, content type, body shape).

Bounded: SCHEMATHESIS_MAX_EXAMPLES (default 2) examples per operation, role and mode, with
Hypothesis derandomised, so the same cases run on every machine. The requests go through
Django's WSGI handler in the test's transaction; each is rolled back, so one role's writes do
not change what the next role sees.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

import pytest
import schemathesis
from django.db import transaction
from django.middleware.csrf import _get_new_csrf_string
from django.test.client import ClientHandler
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.security import world

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "2"))
ROLES = ("agent", "approver", "supervisor", "admin", "auditor", "release", "token")
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _schema() -> Any:
    raw = SchemaGenerator().get_schema(request=None, public=True)
    return schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(raw)))


def _credentials(w: world.World, role: str) -> tuple[dict[str, str], dict[str, str]]:
    """Headers and cookies that sign the request in as `role`."""
    if role.startswith("token"):
        return {"Authorization": f"Bearer {w.raw_tokens[role]}"}, {}
    session = w.client(role).cookies["sessionid"].value
    csrf = _get_new_csrf_string()
    return {"X-CSRFToken": csrf}, {"sessionid": session, "csrftoken": csrf}


class _Wsgi:
    """Django's test handler (no CSRF exemption, no closing of the test's connection at the
    end of a request) as the WSGI callable schemathesis drives."""

    def __init__(self) -> None:
        self.handler = ClientHandler(enforce_csrf_checks=True)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        response: Any = self.handler(environ)
        headers = list(response.items())
        headers += [("Set-Cookie", c.output(header="").strip()) for c in response.cookies.values()]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        return [response.content]


def _run(
    operation: Any,
    strategy: Any,
    label: str,
    headers: dict[str, str],
    cookies: dict[str, str],
    app: _Wsgi,
    failures: list[str],
) -> int:
    cases = 0

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def check(case: Any) -> None:
        nonlocal cases
        cases += 1
        sent = {**headers, "Idempotency-Key": str(uuid.uuid4())}
        with transaction.atomic():
            response = case.call(app=app, headers=sent, cookies=cookies)
            transaction.set_rollback(True)
        try:
            case.validate_response(response, checks=CHECKS, headers=sent)
        except (AssertionError, FailureGroup) as exc:  # schemathesis' failure types
            failures.append(f"{operation.label} {label}: {exc}"[:1500])

    check()
    return cases


@pytest.mark.django_db
def test_no_operation_answers_5xx_or_outside_its_schema_for_any_role() -> None:
    w = world.build()
    app = _Wsgi()
    failures: list[str] = []
    cases = 0
    for result in _schema().get_all_operations():
        operation = result.ok()
        # Path parameters name the world's rows, so the operations reach their real work
        # (ids that do not exist are the bad-input tests' business).
        wanted = {p.name: w.ids[p.name] for p in operation.path_parameters if p.name in w.ids}
        for role in ROLES:
            headers, cookies = _credentials(w, role)
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                strategy = operation.as_strategy(generation_mode=mode, path_parameters=wanted)
                label = f"as {role} ({mode.value})"
                cases += _run(operation, strategy, label, headers, cookies, app, failures)
    print(f"schemathesis: {cases} cases, {len(failures)} failures")
    for failure in failures:
        print("FAILURE", failure.replace("\n", " | "))
    assert cases >= len(ROLES) * 30
    assert failures == []
