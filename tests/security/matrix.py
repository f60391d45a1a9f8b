"""How the permission matrix asks and reads answers: the entries (every URL pattern from
`get_resolver()`, every API operation from the drf-spectacular schema), one request per
entry by role, and the answer written as a short word.

Each request runs inside a savepoint that is rolled back, so a POST that an admin is allowed
to make (deactivate an operator, log out) changes nothing for the next role.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any

from django.db import transaction
from django.http import HttpResponseBase
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator

from tests.security.world import ROLES, World, kwargs_for

PAGE_METHODS = ("GET", "POST")
PARAM = re.compile(r"<(?:[^>:]+:)?(\w+)>")
SCHEMA_PARAM = re.compile(r"{(\w+)}")
API_PREFIX = "/api/v1/"


@dataclass(frozen=True)
class Entry:
    key: str  # a URL pattern's name, or an API operation's path template
    method: str
    page: bool
    params: tuple[str, ...]


def _patterns(resolver: URLResolver, prefix: str = "", ns: str = "") -> Iterator[tuple[str, str]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{ns}:{entry.namespace}".strip(":") if entry.namespace else ns
            yield from _patterns(entry, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            name = f"{ns}:{entry.name}".strip(":") if entry.name else entry.lookup_str
            yield "/" + prefix + str(entry.pattern), name


def api_operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (path, method.upper())
        for path, operations in schema["paths"].items()
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    )


def entries() -> list[Entry]:
    """Every page (GET and POST) and every API operation. API URL patterns are covered by
    their schema operations; one missing from the schema is reported by `unschemed_api`."""
    out: list[Entry] = []
    seen_pages: set[str] = set()
    for route, name in _patterns(get_resolver()):
        if route.startswith(API_PREFIX) or name in seen_pages:
            continue
        seen_pages.add(name)
        params = tuple(PARAM.findall(route))
        out += [Entry(name, method, True, params) for method in PAGE_METHODS]
    for path, method in api_operations():
        out.append(Entry(path, method, False, tuple(SCHEMA_PARAM.findall(path))))
    return sorted(out, key=lambda e: (not e.page, e.key, e.method))


def unschemed_api() -> list[str]:
    """API URL patterns no schema operation documents (the schema is the API's contract)."""
    documented = {re.sub(SCHEMA_PARAM, "<>", path) for path, _ in api_operations()}
    missing = []
    for route, name in _patterns(get_resolver()):
        if not route.startswith(API_PREFIX):
            continue
        template = PARAM.sub("<>", route)
        if template not in documented:
            missing.append(f"{name} ({route})")
    return sorted(missing)


def url_for(entry: Entry, world: World) -> str:
    kwargs = kwargs_for(entry.key, list(entry.params), world.ids)
    if entry.page:
        return reverse(entry.key, kwargs=kwargs or None)
    return SCHEMA_PARAM.sub(lambda m: str(kwargs[m[1]]), entry.key)


def answer(response: HttpResponseBase) -> str:
    """The response in a word: the status code, or where a redirect goes when it is one of
    the gates (login, OTP, enrolment, step-up)."""
    if response.status_code in (301, 302, 303):
        location = response["Location"].split("?")[0]
        for prefix, word in (
            ("/login/verify/", "otp"),
            ("/login/enroll/", "enroll"),
            ("/login/", "login"),
            ("/security/verify/", "stepup"),
        ):
            if location.startswith(prefix):
                return word
    return str(response.status_code)


def body(entry: Entry, ids: dict[str, int]) -> dict[str, Any]:
    """A valid body for an API operation, so that the answer is about who asks, not a 400
    for what they sent (validation runs before some permission checks)."""
    today = dt.date.today().isoformat()
    v = ids["version"]
    bodies: dict[str, dict[str, Any]] = {
        "/api/v1/escalations": {
            "customer": {"name": "Matrix Customer", "email": "m@example.test"},
            "category": "customer_request",
            "reason": "asked for a human",
            "summary": "wants a person",
            "transcript": [{"role": "customer", "content": "a human please"}],
            "requested_action": "call back",
        },
        "/api/v1/evals/runs/start": {"suite": "smoke", "trials": 1},
        "/api/v1/evals/runs/{run_id}/resume": {},
        "/api/v1/notifications/read": {},
        "/api/v1/reconciliation/items/{item_id}/resolve": {"note": "checked with provider"},
        "/api/v1/reconciliation/run": {"date_from": today, "date_to": today},
        "/api/v1/refunds/preview": {"payment_id": ids["payment_id"], "amount": "1.00"},
        "/api/v1/refunds/request": {
            "payment_id": ids["payment_id"],
            "amount": "1.00",
            "reason": "matrix",
        },
        "/api/v1/refunds/{refund_id}/approve": {"reason": "ok"},
        "/api/v1/refunds/{refund_id}/cancel": {"reason": "not needed"},
        "/api/v1/refunds/{refund_id}/reject": {"reason": "no"},
        "/api/v1/tickets/{ticket_id}/assignment": {"version": v, "take": True},
        "/api/v1/tickets/{ticket_id}/customer-messages": {"body": "still waiting"},
        "/api/v1/tickets/{ticket_id}/merge": {
            "version": v,
            "target_id": ids["other_ticket_id"],
            "target_version": ids["other_version"],
        },
        "/api/v1/tickets/{ticket_id}/notes": {"version": v, "body": "looked at it"},
        "/api/v1/tickets/{ticket_id}/notes/{note_id}": {"version": v, "body": "edited"},
        "/api/v1/tickets/{ticket_id}/priority": {"version": v, "priority": "urgent"},
        "/api/v1/tickets/{ticket_id}/replies": {"version": v, "body": "on it"},
        "/api/v1/tickets/{ticket_id}/status": {"version": v, "status": "on_hold"},
        "/api/v1/tickets/{ticket_id}/tags": {"version": v, "tags": ["matrix"]},
    }
    return bodies.get(entry.key, {})


def ask(entry: Entry, role: str, world: World) -> str:
    client = world.client(role)
    url = url_for(entry, world)
    # Logging out clears the client's cookie; the rollback restores the session row, and
    # this restores the cookie that names it.
    cookies = SimpleCookie()
    cookies.update(client.cookies)
    with transaction.atomic():
        if entry.page:
            response = client.generic(entry.method, url)
        else:
            data = json.dumps(body(entry, world.ids))
            response = client.generic(
                entry.method,
                url,
                data,
                content_type="application/json",
                headers={"Idempotency-Key": str(uuid.uuid4())},
            )
        transaction.set_rollback(True)
    client.cookies = cookies
    return answer(response)


def observe(entry: Entry, world: World) -> tuple[str, ...]:
    return tuple(ask(entry, role, world) for role in ROLES)


def row(entry: Entry, answers: tuple[str, ...]) -> str:
    """One line of the MATRIX table, as it is written in test_permission_matrix.py."""
    return f"{entry.key:<44} {entry.method:<6} " + " ".join(f"{a:<6}" for a in answers).rstrip()
