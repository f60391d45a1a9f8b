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
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connections, router, transaction
from django.http.request import RawPostDataException
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from backoffice.errors import Conflict, DomainError, Unprocessable, ValidationFailed
from backoffice.fingerprint import request_fingerprint
from backoffice.models import IdempotencyRecord, IdempotencyState
from identity.audit import audit_record

logger = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255

# An in-flight record older than this belongs to a request that died (its transaction rolled
# back, so it changed nothing); a retry may take it over. Far above any sane request time so
# a slow but live request is never raced.
IN_FLIGHT_STALE_SECONDS = 300

# On PostgreSQL a live request holds its record's row lock for as long as its transaction
# runs (_hold), so an in-flight record nobody holds belongs to a request that died (its
# connection went with a database restart, or its process was killed). The grace covers the
# moment between the claim's commit and the lock; past it a retry takes the record over.
IN_FLIGHT_LOCK_GRACE_SECONDS = 2

# Statuses that say "try again", not "this is the answer": the record is dropped so the same
# key can be retried.
_RETRYABLE_STATUSES = frozenset({409, 429})


class _Superseded(Exception):
    """The record was taken over by another request; this one must not commit."""


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


_TABLE = IdempotencyRecord._meta.db_table
_CLAIM_COLUMNS = (
    "principal",
    "scope",
    "key",
    "fingerprint",
    "state",
    "owner",
    "created_at",
    "expires_at",
)
# One statement, one round trip: outside a transaction it commits on its own, so the claim
# is visible to every concurrent duplicate before the view runs. A duplicate does not raise
# (no savepoint, no BEGIN/COMMIT pair); it gets no row back and reads the existing record.
# On PostgreSQL an insert that meets a conflicting row still being inserted waits for that
# transaction, so two claims can never both return a row.
_FIELDS = {field.name: field for field in IdempotencyRecord._meta.concrete_fields}
_CLAIM_SQL = (
    f"INSERT INTO {_TABLE} ({', '.join(_CLAIM_COLUMNS)}) "  # noqa: S608 - names from the model
    f"VALUES ({', '.join(['%s'] * len(_CLAIM_COLUMNS))}) "
    "ON CONFLICT (principal, scope, key) DO NOTHING RETURNING id"
)
# Taken by the owner as the first statement of the view's transaction, released by its commit
# or rollback, or by the server when the connection dies.
_HOLD_SQL = (
    f"SELECT 1 FROM {_TABLE} WHERE id = %s AND owner = %s AND state = %s "  # noqa: S608
    "FOR UPDATE"
)
# One statement: take over the record if, and only if, no transaction holds it.
_TAKE_OVER_UNHELD_SQL = (
    f"UPDATE {_TABLE} SET owner = %s, created_at = %s WHERE id = ("  # noqa: S608
    f"SELECT id FROM {_TABLE} WHERE id = %s AND owner = %s AND state = %s "
    "FOR UPDATE SKIP LOCKED)"
)
_COMPLETE_SQL = (
    f"UPDATE {_TABLE} SET state = %s, response_status = %s, response_body = %s "  # noqa: S608
    "WHERE id = %s AND owner = %s AND state = %s"
)


def _may_commit_claim_asynchronously(connection: Any) -> bool:
    """PostgreSQL, outside any transaction (the statement is its own), with client-side
    parameter binding (psycopg's default in Django), which allows two statements at once."""
    return (
        connection.vendor == "postgresql"
        and connection.get_autocommit()
        and not connection.settings_dict.get("OPTIONS", {}).get("server_side_binding")
    )


def _insert_claim(
    *, principal: str, scope: str, key: str, fingerprint: str, owner: str, now: dt.datetime
) -> IdempotencyRecord | None:
    """The new in-flight record, or None when (principal, scope, key) already exists."""
    record = IdempotencyRecord(
        principal=principal,
        scope=scope,
        key=key,
        fingerprint=fingerprint,
        state=IdempotencyState.IN_FLIGHT.value,
        owner=owner,
        created_at=now,
        expires_at=now + dt.timedelta(seconds=settings.IDEMPOTENCY_KEY_TTL_SECONDS),
    )
    alias = router.db_for_write(IdempotencyRecord)
    connection = connections[alias]
    if not connection.features.can_return_columns_from_insert:
        # Other backends: the portable form (savepoint, INSERT, a duplicate raises).
        try:
            with transaction.atomic(using=alias):
                record.save(using=alias, force_insert=True)
        except IntegrityError:
            return None
        return record
    params = [
        _FIELDS[name].get_db_prep_save(getattr(record, name), connection) for name in _CLAIM_COLUMNS
    ]
    with connection.cursor() as cursor:
        if _may_commit_claim_asynchronously(connection):
            # The claim needs to be visible at once, not durable at once: an asynchronous
            # commit is visible to every other session immediately, and the WAL is flushed in
            # order, so the view's (synchronous) commit makes the claim durable with it. A
            # crash before that loses only a claim whose request changed nothing durable; the
            # retry then runs afresh. Saves one WAL flush (fdatasync) per write request.
            # Both statements go in one round trip, one implicit transaction.
            cursor.execute(f"SET LOCAL synchronous_commit TO OFF; {_CLAIM_SQL}", params)
            cursor.nextset()
        else:
            cursor.execute(_CLAIM_SQL, params)
        row = cursor.fetchone()
    if row is None:
        return None
    record.pk = row[0]
    record._state.adding = False
    record._state.db = alias
    return record


def _locks_records(alias: str) -> bool:
    """Whether a live request's row lock on its record tells a retry that it is alive."""
    return connections[alias].vendor == "postgresql"


def _hold(record: IdempotencyRecord) -> None:
    """Lock our record for the view's transaction (PostgreSQL). No row: a retry took the
    record over while this request had not started yet, so this one must not run."""
    alias = router.db_for_write(IdempotencyRecord)
    if not _locks_records(alias):
        return
    with connections[alias].cursor() as cursor:
        cursor.execute(_HOLD_SQL, [record.pk, record.owner, IdempotencyState.IN_FLIGHT.value])
        held = cursor.fetchone() is not None
    if not held:
        raise _Superseded


def _take_over_if_unheld(existing: IdempotencyRecord, *, owner: str, now: dt.datetime) -> bool:
    alias = router.db_for_write(IdempotencyRecord)
    if not _locks_records(alias):
        return False
    if (now - existing.created_at).total_seconds() <= IN_FLIGHT_LOCK_GRACE_SECONDS:
        return False
    with connections[alias].cursor() as cursor:
        cursor.execute(
            _TAKE_OVER_UNHELD_SQL,
            [owner, now, existing.pk, existing.owner, IdempotencyState.IN_FLIGHT.value],
        )
        return cursor.rowcount == 1


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
        record = _insert_claim(
            principal=principal, scope=scope, key=key, fingerprint=fingerprint, owner=owner, now=now
        )
        if record is not None:
            return record, None
        existing = IdempotencyRecord.objects.filter(
            principal=principal, scope=scope, key=key
        ).first()
        if existing is None:
            continue  # deleted (failed or purged) between our insert and our read: retry
        if existing.expires_at <= now:
            IdempotencyRecord.objects.filter(pk=existing.pk, owner=existing.owner).delete()
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
        if _take_over_if_unheld(existing, owner=owner, now=now):
            # Its request died with its connection (a database restart, a killed process):
            # nothing it did committed, so this retry runs the view in its place.
            existing.owner = owner
            return existing, None
        if (now - existing.created_at).total_seconds() > IN_FLIGHT_STALE_SECONDS:
            taken = IdempotencyRecord.objects.filter(
                pk=existing.pk, owner=existing.owner, state=IdempotencyState.IN_FLIGHT
            ).update(owner=owner, created_at=now)
            if taken:
                existing.owner = owner
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
    # Plain SQL: on every write request this UPDATE cost more to build through the ORM than
    # to run. The owner and state conditions keep a superseded request from completing.
    alias = router.db_for_write(IdempotencyRecord)
    connection = connections[alias]
    body = _FIELDS["response_body"].get_db_prep_save(_jsonable(response.data), connection)
    with connection.cursor() as cursor:
        cursor.execute(
            _COMPLETE_SQL,
            [
                IdempotencyState.COMPLETED.value,
                response.status_code,
                body,
                record.pk,
                record.owner,
                IdempotencyState.IN_FLIGHT.value,
            ],
        )
        updated = cursor.rowcount
    if not updated:
        raise _Superseded


def _release(record: IdempotencyRecord) -> None:
    IdempotencyRecord.objects.filter(
        pk=record.pk, owner=record.owner, state=IdempotencyState.IN_FLIGHT
    ).delete()


def _release_if_reachable(record: IdempotencyRecord) -> None:
    """Release after an unexpected exception, which may be the database going away: then the
    release fails too, and must not hide the original error (the caller re-raises that one).
    The record stays in flight; a retry takes it over (_take_over_if_unheld)."""
    try:
        _release(record)
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
                    _hold(record)
                    response = method(view, request, *args, **kwargs)
                    if response.status_code >= 500 or response.status_code in _RETRYABLE_STATUSES:
                        raise _Discard(response)
                    _complete(record, response)
                return response
            except _Discard as discard:
                _release(record)
                return discard.response
            except _Superseded:
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
                    _release(record)
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


@transaction.atomic
def idempotency_purge_expired(*, now: dt.datetime | None = None) -> int:
    """Delete records past their expiry; returns how many. Run by Celery beat."""
    moment = now or timezone.now()
    deleted, _ = IdempotencyRecord.objects.filter(expires_at__lte=moment).delete()
    audit_record(
        actor=None,
        action="idempotency.purge",
        target_type="backoffice.idempotencyrecord",
        after={"deleted": deleted, "expired_before": moment},
    )
    return deleted
