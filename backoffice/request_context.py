"""Who is asking and from where, for the audit trail, without threading `request` through
every service signature. Set by RequestContextMiddleware for HTTP and by task wrappers for
Celery; read by identity.audit."""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class RequestContext:
    request_id: str
    ip: str | None = None
    user_agent: str = ""


_current: contextvars.ContextVar[RequestContext | None] = contextvars.ContextVar(
    "request_context", default=None
)


def current() -> RequestContext | None:
    return _current.get()


def new_request_id() -> str:
    return uuid.uuid4().hex


@contextmanager
def bound(context: RequestContext) -> Iterator[RequestContext]:
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)
