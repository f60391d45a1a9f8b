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
import hashlib
import ipaddress
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from django.core.exceptions import ValidationError
from django.db import models, transaction
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


def _lock_head() -> tuple[int, str]:
    """The chain head (seq, hash), locked until the transaction ends (on SQLite the
    IMMEDIATE transaction already holds the database's write lock)."""
    heads = AuditChainHead.objects.select_for_update().filter(pk=1).values_list("seq", "hash")
    head = heads.first()
    if head is None:  # a fresh or flushed database
        AuditChainHead.objects.get_or_create(pk=1)
        head = heads.first()
    assert head is not None
    return int(head[0]), str(head[1])


def _insert(event: AuditEvent) -> None:
    """INSERT the event and move the head onto it."""
    event.save(force_insert=True)
    AuditChainHead.objects.filter(pk=1).update(seq=event.seq, hash=event.hash)


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
        seq, prev_hash = _lock_head()
        event.seq = seq + 1
        event.prev_hash = prev_hash
        event.hash = compute_hash(prev_hash, event)
        _insert(event)
    return event
