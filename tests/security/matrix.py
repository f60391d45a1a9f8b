"""How the permission matrix asks and reads answers: the entries (every URL pattern from
`get_resolver()`, every API operation from the drf-spectacular schema), one request per
entry by role, and the answer written as a short word.

Each request runs inside a savepoint that is rolled back, so a POST that an admin is allowed
to make (deactivate an operator, log out) changes nothing for the next role.

Page POSTs carry a valid form (`page_body`), as API operations carry a valid body, so that an
allowed POST does what it is for and the answer tells it from a refused one: a page answers
a form with a redirect either way (post/redirect/get), so the word says what happened —
`done` (the request recorded a change in the audit trail, or flashed only a success), `error`
(nothing changed and it flashed an error or a warning: the role was refused, or the world's
state does not allow the action; the table's comments say which).
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

from django.contrib import messages
from django.db import transaction
from django.http import HttpResponseBase
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator

from identity.models import AuditEvent
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


GATES = (
    ("/login/verify/", "otp"),
    ("/login/enroll/", "enroll"),
    ("/login/", "login"),
    ("/security/verify/", "stepup"),
)
# Audit actions that record a refusal, not a change.
REFUSAL_ACTIONS = ("failure", "lockout")


def answer(response: HttpResponseBase, *, changed: bool = False, posted: bool = False) -> str:
    """The response in a word: where a redirect goes when it is one of the gates (login, OTP,
    enrolment, step-up); `done` or `error` for what a page POST did (see the module's
    docstring); otherwise the status code."""
    redirect = response.status_code in (301, 302, 303)
    if redirect:
        location = response["Location"].split("?")[0]
        for prefix, word in GATES:
            if location.startswith(prefix):
                return word
    if not posted:
        return str(response.status_code)
    if changed and response.status_code < 400:
        return "done"
    request = getattr(response, "wsgi_request", None)
    if redirect and request is not None:
        levels = {m.level for m in messages.get_messages(request)}
        if any(level >= messages.WARNING for level in levels):
            return "error"  # a refusal, or a bulk action that skipped what it was given
        if messages.SUCCESS in levels:
            return "done"
    return str(response.status_code)


def _changed_since(seq: int) -> bool:
    """Whether an audit event other than a refused attempt was written after `seq`."""
    events = AuditEvent.objects.filter(seq__gt=seq)
    for ending in REFUSAL_ACTIONS:
        events = events.exclude(action__endswith=ending)
    return events.exists()


def page_body(entry: Entry, ids: dict[str, int]) -> dict[str, Any]:
    """A valid form for a page POST, so that the answer is about who asks (`done` for whom
    may, a refusal for whom may not), not the form's errors for everyone."""
    v, ticket = ids["version"], ids["ticket_id"]
    today = dt.date.today().isoformat()
    bodies: dict[str, dict[str, Any]] = {
        "identity:operator_roles": {"roles": ["agent", "approver"]},
        "identity:operator_reset_2fa": {"totp-reason": "lost phone; called them back"},
        "identity:operator_reset_password": {"password-reason": "forgot it; called them back"},
        "payments_sandbox:refund_request": {"amount": "1.00", "reason": "matrix"},
        "payments_sandbox:refund_approve": {"reason": "ok"},
        "payments_sandbox:refund_reject": {"reason": "no"},
        "payments_sandbox:refund_cancel": {"reason": "not needed"},
        "payments_sandbox:reconciliation_run": {"date_from": today, "date_to": today},
        "payments_sandbox:reconciliation_resolve": {"note": "checked with provider"},
        "tickets:assign": {"version": v, "assignee": ids["carol"]},
        "tickets:bulk": {"action": "priority", "priority": "urgent", "t": f"{ticket}:{v}"},
        "tickets:duty": {"on_duty": "1"},
        "tickets:member_duty": {"operator": ids["alice"], "on_duty": "1"},
        "tickets:merge": {
            "version": v,
            "target": ids["other_ticket_id"],
            "target_version": ids["other_version"],
        },
        "tickets:note": {"version": v, "body": "looked at it"},
        "tickets:note_edit": {"version": v, "body": "edited"},
        "tickets:priority": {"version": v, "priority": "urgent"},
        "tickets:reply": {"version": v, "body": "on it"},
        "tickets:status": {"version": v, "status": "on_hold"},
        "tickets:tags": {"version": v, "tags": "matrix"},
        "tickets:take": {"version": v},
    }
    return bodies.get(entry.key, {})


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


def ask(entry: Entry, role: str, world: World, *, pk: int | None = None) -> str:
    """The answer `role` gets for `entry`; `pk` names another object than the world's usual
    one for the entry (a page's `<int:pk>`)."""
    client = world.client(role)
    url = url_for(entry, world) if pk is None else reverse(entry.key, kwargs={"pk": pk})
    # Logging out clears the client's cookie; the rollback restores the session row, and
    # this restores the cookie that names it.
    cookies = SimpleCookie()
    cookies.update(client.cookies)
    seq = AuditEvent.objects.order_by("-seq").values_list("seq", flat=True).first() or 0
    changed = False
    with transaction.atomic():
        if entry.page and entry.method == "POST":
            response = client.post(url, page_body(entry, world.ids))
            changed = _changed_since(seq)
        elif entry.page:
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
    return answer(response, changed=changed, posted=entry.page and entry.method == "POST")


def observe(entry: Entry, world: World) -> tuple[str, ...]:
    return tuple(ask(entry, role, world) for role in ROLES)


def row(entry: Entry, answers: tuple[str, ...]) -> str:
    """One line of the MATRIX table, as it is written in test_permission_matrix.py."""
    return f"{entry.key:<44} {entry.method:<6} " + " ".join(f"{a:<6}" for a in answers).rstrip()
