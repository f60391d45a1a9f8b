"""The audit trail: one hash-chained event per service call, in the caller's transaction.

Every service in every app ends with `audit_record(...)` inside its `transaction.atomic()`
block, so the event exists if and only if the change it records was committed.

The chain: event n stores hash_n = sha256(hash_{n-1} || canonical(content_n)). Editing,
deleting or reordering any stored event breaks the equality for that event or the next one,
which `manage.py audit verify` finds by streaming the table in sequence order.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import functools
import hashlib
import ipaddress
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from django.core.exceptions import ValidationError
from django.db import connections, models, router, transaction
from django.utils import timezone
from django.utils.ipv6 import clean_ipv6_address

from backoffice import request_context
from identity.models import ActorType, AuditChainHead, AuditEvent, Operator

GENESIS_HASH = "0" * 64


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        # JSON readers (and the canonical encoder) handle 64-bit integers; larger ones as text.
        return value if -(2**63) <= value < 2**63 else str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, enum.Enum):
        return _jsonable(value.value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, models.Model):
        return value.pk
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return str(value)


def snapshot(instance: models.Model, fields: Iterable[str]) -> dict[str, Any]:
    """The named fields of a model instance as JSON-safe values, for before/after."""
    out: dict[str, Any] = {}
    for name in fields:
        field = instance._meta.get_field(name)
        attname = getattr(field, "attname", name)
        out[name] = _jsonable(getattr(instance, attname))
    return out


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[dict, dict]:
    """Only the keys whose value differs, so events show what changed, not whole rows."""
    keys = [k for k in after if before.get(k) != after.get(k)]
    return {k: before.get(k) for k in keys}, {k: after[k] for k in keys}


# The hashed fields, in the order verify reads them with values_list. The canonical form is
# JSON with sorted keys and no whitespace, so it does not depend on how a database stores
# JSON (PostgreSQL's jsonb reorders keys) or on column order.
CONTENT_FIELDS = (
    "seq",
    "occurred_at",
    "actor_type",
    "actor_id",
    "actor_label",
    "action",
    "target_type",
    "target_id",
    "before",
    "after",
    "request_id",
    "ip",
)
_ORJSON_OPTIONS = orjson.OPT_SORT_KEYS


def canonical_time(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat(timespec="microseconds")


def canonical_values(values: tuple[Any, ...]) -> bytes:
    """Canonical bytes of one event from its CONTENT_FIELDS values, in that order;
    occurred_at may be a datetime or already canonical_time() text."""
    content = dict(zip(CONTENT_FIELDS, values, strict=True))
    if not isinstance(values[1], str):
        content["occurred_at"] = canonical_time(values[1])
    return canonical_bytes(content)


def canonical_bytes(content: dict[str, Any]) -> bytes:
    """The hashed form of an event: its CONTENT_FIELDS as JSON, keys sorted, no spaces."""
    # orjson with sorted keys writes exactly what json.dumps(sort_keys=True,
    # separators=(",", ":"), ensure_ascii=False) writes for JSON values (checked by a property
    # test), several times faster: verify re-encodes every event.
    return orjson.dumps(content, option=_ORJSON_OPTIONS)


def canonical_content(event: AuditEvent) -> bytes:
    return canonical_values(tuple(getattr(event, name) for name in CONTENT_FIELDS))


def hash_values(prev_hash: str, values: tuple[Any, ...]) -> str:
    digest = hashlib.sha256(prev_hash.encode("ascii"))
    digest.update(canonical_values(values))
    return digest.hexdigest()


def compute_hash(prev_hash: str, event: AuditEvent) -> str:
    return hash_values(prev_hash, tuple(getattr(event, name) for name in CONTENT_FIELDS))


def _normalized_ip(ip: str | None) -> str | None:
    """The address as the database will return it: the hash is computed before the row is
    stored, so it must see the same text verify will read back (IPv6 is compressed)."""
    if not ip:
        return None
    try:
        if ":" in ip:
            return clean_ipv6_address(ip)
        return str(ipaddress.IPv4Address(ip))
    except (ValueError, ValidationError):
        return None


def _actor_fields(actor: Operator | None) -> tuple[str, int | None, str]:
    if actor is None or not getattr(actor, "pk", None):
        return ActorType.SYSTEM, None, "system"
    kind = ActorType.SERVICE if actor.is_service_principal else ActorType.OPERATOR
    return kind, actor.pk, actor.get_username()


# Every audited write in every app runs these statements, on the escalation path too, so
# they stay hand-written (the reason and the figures: docs/performance.md, "Audit append").
# Every identifier comes from the models, quoted by the backend; every value is a parameter.
_INSERT_FIELDS = [f for f in AuditEvent._meta.concrete_fields if not f.primary_key]
_CHAINED = {"seq", "prev_hash", "hash"}


@functools.cache
def _statements(alias: str) -> dict[str, str]:
    connection = connections[alias]
    quote = connection.ops.quote_name
    head = quote(AuditChainHead._meta.db_table)
    events = quote(AuditEvent._meta.db_table)

    def column(model: type[models.Model], name: str) -> str:
        # Concrete fields by name (get_field may also return a relation, which has no column).
        return quote(str(next(f.column for f in model._meta.concrete_fields if f.name == name)))

    head_id, head_seq, head_hash = (column(AuditChainHead, n) for n in ("id", "seq", "hash"))
    event_id = column(AuditEvent, "id")
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    columns = ", ".join(quote(str(f.column)) for f in _INSERT_FIELDS)
    insert = (
        f"INSERT INTO {events} ({columns}) "  # noqa: S608
        f"VALUES ({', '.join(['%s'] * len(_INSERT_FIELDS))})"
    )
    move_head = f"UPDATE {head} SET {head_seq} = %s, {head_hash} = %s WHERE {head_id} = 1"  # noqa: S608
    statements = {
        "lock_head": f"SELECT {head_seq}, {head_hash} FROM {head} WHERE {head_id} = 1{lock}",  # noqa: S608
        "insert": insert,
        "insert_returning": f"{insert} RETURNING {event_id}",
        "move_head": move_head,
        # One round trip for both statements (a data-modifying CTE).
        "insert_and_move_head": (
            f"WITH e AS ({insert} RETURNING {event_id}) {move_head} "  # noqa: S608
            f"RETURNING (SELECT {event_id} FROM e)"
        ),
    }
    if connection.vendor == "postgresql":
        statements["one_statement"] = _one_statement_sql(connection, head, events, column)
    return statements


def _lock_head() -> tuple[int, str]:
    """The chain head (seq, hash), locked until the transaction ends (on SQLite the
    IMMEDIATE transaction already holds the database's write lock)."""
    alias = router.db_for_write(AuditChainHead)
    sql = _statements(alias)["lock_head"]
    with connections[alias].cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
        if row is None:  # a fresh or flushed database
            AuditChainHead.objects.get_or_create(pk=1)
            cursor.execute(sql)
            row = cursor.fetchone()
    return int(row[0]), str(row[1])


def _insert(event: AuditEvent) -> None:
    """INSERT the event and move the head onto it."""
    alias = router.db_for_write(AuditEvent)
    connection = connections[alias]
    statements = _statements(alias)
    params = [f.get_db_prep_save(getattr(event, f.attname), connection) for f in _INSERT_FIELDS]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(statements["insert_and_move_head"], [*params, event.seq, event.hash])
            event.pk = cursor.fetchone()[0]
        elif connection.features.can_return_columns_from_insert:
            cursor.execute(statements["insert_returning"], params)
            event.pk = cursor.fetchone()[0]
            cursor.execute(statements["move_head"], [event.seq, event.hash])
        else:
            cursor.execute(statements["insert"], params)
            event.pk = connection.ops.last_insert_id(
                cursor, AuditEvent._meta.db_table, str(AuditEvent._meta.pk.column)
            )
            cursor.execute(statements["move_head"], [event.seq, event.hash])
    event._state.adding = False
    event._state.db = alias


# -- PostgreSQL: lock, link and append in one statement ----------------------------------------
#
# The chain head is the one lock every audited write in every app waits for, and it is held
# from the moment it is taken until the transaction commits. Taking it, reading the head,
# hashing in Python and sending the insert cost two round trips while it was held. Instead
# the event's canonical bytes are built before the lock with a marker where the sequence
# number goes, and PostgreSQL locks the head, splices the number in and computes
# sha256(prev_hash || canonical bytes) itself (the same bytes `audit verify` hashes), inserts
# the event and moves the head: one statement, and the lock is taken as late as it can be.

_SEQ_MARKER = -7318294650123456789  # never a real sequence number (those are positive)
_SEQ_MARKER_BYTES = b'"seq":' + str(_SEQ_MARKER).encode("ascii")


def _one_statement_sql(connection: Any, head: str, events: str, column: Any) -> str:
    quote = connection.ops.quote_name
    given = [f for f in _INSERT_FIELDS if f.name not in _CHAINED]
    columns = ", ".join(quote(str(f.column)) for f in given)
    # Explicit casts: in INSERT … SELECT the values are not coerced to the column types.
    casts = ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in given)
    head_id, head_seq, head_hash = (column(AuditChainHead, n) for n in ("id", "seq", "hash"))
    event_id, seq, prev_hash, hash_ = (
        column(AuditEvent, n) for n in ("id", "seq", "prev_hash", "hash")
    )
    return (
        f"WITH h AS (SELECT {head_seq} AS seq, {head_hash} AS hash FROM {head} "  # noqa: S608
        f"WHERE {head_id} = 1 FOR UPDATE), "
        "n AS (SELECT h.seq + 1 AS seq, h.hash AS prev_hash, encode(sha256("
        "convert_to(h.hash, 'UTF8') || %s::bytea || convert_to((h.seq + 1)::text, 'UTF8') "
        "|| %s::bytea), 'hex') AS hash FROM h), "
        f"e AS (INSERT INTO {events} ({columns}, {seq}, {prev_hash}, {hash_}) "
        f"SELECT {casts}, n.seq, n.prev_hash, n.hash FROM n "
        f"RETURNING {event_id} AS id, {seq} AS seq, {prev_hash} AS prev_hash, "
        f"{hash_} AS hash) "
        f"UPDATE {head} SET {head_seq} = e.seq, {head_hash} = e.hash FROM e "
        f"WHERE {head}.{head_id} = 1 "
        "RETURNING e.id, e.seq, e.prev_hash, e.hash"
    )


def _append_in_one_statement(event: AuditEvent) -> bool:
    """Append `event` on PostgreSQL in one statement; False when that cannot be done (another
    database, a fresh database without a head row, or content in which the marker is not
    unique), and the caller then takes the portable path."""
    alias = router.db_for_write(AuditEvent)
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return False
    event.seq = _SEQ_MARKER
    content = canonical_content(event)
    if content.count(_SEQ_MARKER_BYTES) != 1:
        return False
    head, tail = content.split(_SEQ_MARKER_BYTES)
    given = [f for f in _INSERT_FIELDS if f.name not in _CHAINED]
    params = [
        head + b'"seq":',
        tail,
        *(f.get_db_prep_save(getattr(event, f.attname), connection) for f in given),
    ]
    with connection.cursor() as cursor:
        cursor.execute(_statements(alias)["one_statement"], params)
        row = cursor.fetchone()
    if row is None:  # no head row yet: nothing was written
        return False
    event.pk, event.seq, event.prev_hash, event.hash = row[0], int(row[1]), row[2], row[3]
    event._state.adding = False
    event._state.db = alias
    return True


def audit_record(
    *,
    actor: Operator | None,
    action: str,
    target: models.Model | None = None,
    target_type: str = "",
    target_id: str | int = "",
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> AuditEvent:
    """Append one event. `actor=None` means the system (a scheduled job).

    Call it last in the service's transaction: it locks the chain head until commit, and
    every other audited write waits for that lock, so the shorter the rest of the
    transaction after it, the better concurrent writers fare.
    """
    if target is not None:
        target_type = target_type or f"{target._meta.app_label}.{target._meta.model_name}"
        target_id = target_id or target.pk
    actor_type, actor_id, actor_label = _actor_fields(actor)
    context = request_context.current()
    # No savepoint: inside the service's transaction a failure here must abort the whole
    # change anyway, and SAVEPOINT/RELEASE would cost two more round trips per write.
    with transaction.atomic(savepoint=False):
        occurred_at = timezone.now()
        event = AuditEvent(
            occurred_at=occurred_at,
            actor_type=actor_type,
            actor_id=actor_id,
            actor_label=actor_label,
            action=action,
            target_type=target_type,
            target_id=str(target_id),
            before=_jsonable(dict(before or {})),
            after=_jsonable(dict(after or {})),
            request_id=context.request_id if context else "",
            ip=_normalized_ip(context.ip) if context else None,
        )
        if not _append_in_one_statement(event):
            seq, prev_hash = _lock_head()
            event.seq = seq + 1
            event.prev_hash = prev_hash
            event.hash = compute_hash(prev_hash, event)
            _insert(event)
    return event
