"""Idempotency-Key handling for every write endpoint of the API.

    class RefundRequestView(APIView):
        @idempotent(scope="refunds")
        def post(self, request): ...

The protocol (same as the big payment providers'):

- The client sends `Idempotency-Key: <1-255 printable characters>` with every write; without
  one the request is refused (400), never executed un-keyed.
- The first request with a key inserts an *in-flight* record and commits it before the view
  runs. A concurrent duplicate hits the unique constraint (principal, scope, key) and gets 409
  instead of running the view a second time.
- The view then runs inside one transaction together with the update that marks the record
  *completed* with the response status and body. Either both commit or neither does: a
  process that dies half-way leaves no side effect, only a stale in-flight record, which a
  retry may take over once it is older than IN_FLIGHT_STALE_SECONDS.
- A replay with the same key and the same request (fingerprint over method, path, body and
  principal) returns the stored status and body with `Idempotent-Replayed: true`.
- The same key with a different request is a client bug: 422.
- A 5xx, an unexpected exception or a transient conflict (409, 429) removes the record so the
  client may retry with the same key. Other 4xx outcomes are final and replayed as stored.
- A request that loses the database mid-way (restart, failover) cannot remove its record. On
  PostgreSQL its transaction held a row lock on the record, which the server released when
  the connection died: a retry finding the record in flight but unlocked takes it over after
  IN_FLIGHT_LOCK_GRACE_SECONDS instead of waiting out IN_FLIGHT_STALE_SECONDS.
- Records live IDEMPOTENCY_KEY_TTL_SECONDS (24 h by default); `idempotency_purge_expired`,
  run by Celery beat, deletes them afterwards.

This module is the HTTP side (the header, the decorator, the answers); every statement about
a record, and the timings above, are in `backoffice.idempotency_records`.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import DatabaseError, transaction
from django.http.request import RawPostDataException
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from backoffice import idempotency_records as records
from backoffice.errors import Conflict, DomainError, Unprocessable, ValidationFailed
from backoffice.fingerprint import request_fingerprint
from backoffice.models import IdempotencyRecord, IdempotencyState

logger = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255

# Statuses that say "try again", not "this is the answer": the record is dropped so the same
# key can be retried.
_RETRYABLE_STATUSES = frozenset({409, 429})


class _Discard(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


def validate_key(raw: str | None) -> str:
    if raw is None or raw == "":
        raise ValidationFailed(
            gettext(
                "Send an %(HEADER)s header with every write request: a unique value you generate per operation (a UUID is ideal) and resend unchanged when you retry."
            )
            % {"HEADER": HEADER},
            code="idempotency_key_missing",
        )
    if len(raw) > MAX_KEY_LENGTH or not all(" " <= ch <= "~" for ch in raw):
        raise ValidationFailed(
            gettext("%(HEADER)s must be 1 to %(MAX_KEY_LENGTH)s printable ASCII characters.")
            % {"HEADER": HEADER, "MAX_KEY_LENGTH": MAX_KEY_LENGTH},
            code="idempotency_key_invalid",
        )
    return raw


def principal_label(user: Any) -> str:
    if user is not None and getattr(user, "is_authenticated", False):
        return f"operator:{user.pk}"
    return "anonymous"


def _request_body(request: Request) -> bytes | dict[str, Any]:
    try:
        return request._request.body
    except RawPostDataException:
        # A multipart body already streamed by a parser: fall back to the parsed form.
        data: Any = request.data  # a QueryDict here: multipart/form bodies are parsed to one
        return {key: data.getlist(key) for key in data}


def _jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, cls=JSONEncoder))


def _replay(record: IdempotencyRecord) -> Response:
    return Response(
        record.response_body,
        status=record.response_status,
        headers={REPLAYED_HEADER: "true"},
    )


def _claim(
    *, principal: str, scope: str, key: str, fingerprint: str
) -> tuple[IdempotencyRecord | None, Response | None]:
    """Insert the in-flight record (committed), or answer from the existing one.

    Returns (record we own, None) when this request should run the view, or (None, response)
    when it must not.
    """
    now = timezone.now()
    owner = uuid.uuid4().hex
    for _attempt in range(3):
        record = records.claim(
            principal=principal, scope=scope, key=key, fingerprint=fingerprint, owner=owner, now=now
        )
        if record is not None:
            return record, None
        existing = records.existing(principal=principal, scope=scope, key=key)
        if existing is None:
            continue  # deleted (failed or purged) between our insert and our read: retry
        if existing.expires_at <= now:
            records.drop_expired(existing)
            continue
        if existing.fingerprint != fingerprint:
            raise Unprocessable(
                gettext(
                    "This %(HEADER)s was already used for a different request. Use a new key for a new operation; reuse a key only to retry the identical request."
                )
                % {"HEADER": HEADER},
                code="idempotency_key_reused",
            )
        if existing.state == IdempotencyState.COMPLETED:
            return None, _replay(existing)
        if records.take_over_if_unheld(existing, owner=owner, now=now):
            # Its request died with its connection (a database restart, a killed process):
            # nothing it did committed, so this retry runs the view in its place.
            return existing, None
        if (now - existing.created_at).total_seconds() > records.IN_FLIGHT_STALE_SECONDS:
            if records.take_over(existing, owner=owner, now=now):
                return existing, None
            continue
        raise Conflict(
            gettext(
                "A request with this Idempotency-Key is still being processed. Retry shortly "
                "with the same key to get its result."
            ),
            code="idempotency_in_flight",
        )
    raise Conflict(
        gettext("This Idempotency-Key is contended; retry shortly with the same key."),
        code="idempotency_in_flight",
    )


def _complete(record: IdempotencyRecord, response: Response) -> None:
    records.complete(record, status=response.status_code, body=_jsonable(response.data))


def _release_if_reachable(record: IdempotencyRecord) -> None:
    """Release after an unexpected exception, which may be the database going away: then the
    release fails too, and must not hide the original error (the caller re-raises that one).
    The record stays in flight; a retry takes it over (take_over_if_unheld)."""
    try:
        records.release(record)
    except DatabaseError as exc:
        logger.warning("idempotency record %s not released: %s", record.pk, exc)


ViewMethod = Callable[..., Response]


def idempotent(*, scope: str) -> Callable[[ViewMethod], ViewMethod]:
    """Decorate a DRF APIView handler method (post/put/patch/delete)."""

    def decorator(method: ViewMethod) -> ViewMethod:
        @wraps(method)
        def wrapper(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
            key = validate_key(request.headers.get(HEADER))
            principal = principal_label(request.user)
            body = _request_body(request)
            # Parse before claiming the key: a body the API's parsers refuse (malformed, nested
            # too deep, a NUL character) is a 400 that claims nothing.
            request.data  # noqa: B018
            fingerprint = request_fingerprint(
                method=request.method or "",
                path=request.get_full_path(),
                body=body,
                principal=principal,
            )
            record, answer = _claim(
                principal=principal, scope=scope, key=key, fingerprint=fingerprint
            )
            if answer is not None:
                return answer
            assert record is not None
            try:
                # The view's writes and the completion of the record commit together.
                with transaction.atomic():
                    records.hold(record)
                    response = method(view, request, *args, **kwargs)
                    if response.status_code >= 500 or response.status_code in _RETRYABLE_STATUSES:
                        raise _Discard(response)
                    _complete(record, response)
                return response
            except _Discard as discard:
                records.release(record)
                return discard.response
            except records.Superseded:
                raise Conflict(
                    gettext(
                        "This request took too long and was superseded by a retry with the same "
                        "Idempotency-Key; nothing was changed by it."
                    ),
                    code="idempotency_superseded",
                ) from None
            except (DomainError, APIException) as exc:
                response = view.handle_exception(exc)
                if response.status_code >= 500 or response.status_code in _RETRYABLE_STATUSES:
                    records.release(record)
                    return response
                # A definitive refusal (validation, permission, not found): nothing was
                # written, and the same request will get the same answer on replay.
                with transaction.atomic():
                    _complete(record, response)
                return response
            except BaseException:
                _release_if_reachable(record)
                raise

        return wrapper

    return decorator
