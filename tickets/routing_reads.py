"""Routing's three reads, each run while tickets.routing holds the queue lock: the queues'
on-duty members, their loads locked in operator order, and the queue's waiting tickets."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import connection

from identity.models import Operator, OperatorKind
from tickets.models import (
    ACTIVE_STATUSES,
    OperatorAvailability,
    OperatorLoad,
    Queue,
    QueueMembership,
    Ticket,
)

# Routing's three reads, in plain SQL: they run while the queue lock is held, and every
# escalation runs them. Through the ORM (the same queries as values()/values_list()) they
# cost 1.7 ms more CPU per escalation on PostgreSQL (1.96 ms instead of 0.26), a quarter of
# the whole request's ~7 ms, for the same statements (bench/escalation_sql.py measures each
# site both ways). Table names come from the models (quoted by the backend), every value is
# a bound parameter.
# Candidates: the on-duty human members, least recently assigned first, each with their
# cap and their load as last committed.
_MEMBERS_SQL = """
SELECT m.id, m.queue_id, m.operator_id, o.username, o.display_name, o.email,
       COALESCE(a.capacity_override, q.capacity_per_operator), COALESCE(l.active_tickets, 0)
FROM {membership} m
JOIN {operator} o ON o.id = m.operator_id
JOIN {availability} a ON a.operator_id = o.id
JOIN {queue} q ON q.id = m.queue_id
LEFT JOIN {load} l ON l.operator_id = o.id
WHERE a.on_duty AND o.is_active AND o.kind = %s AND m.queue_id IN ({{queue_ids}})
ORDER BY m.last_assigned_at ASC NULLS FIRST, m.joined_at ASC, m.id ASC
"""
_LOADS_SQL = """
SELECT operator_id, active_tickets FROM {load}
WHERE operator_id IN ({{operator_ids}}) ORDER BY operator_id FOR UPDATE
"""
_WAITING_SQL = """
SELECT id, version, subject FROM {ticket}
WHERE assignee_id IS NULL AND queue_id = %s AND status IN ({{statuses}}) AND unrouted
ORDER BY created_at, id LIMIT %s{{lock}}
"""
_MEMBER_KEYS = ("id", "queue_id", "operator_id", "username", "display_name", "email", "cap", "load")


@functools.cache
def _tables(vendor: str) -> dict[str, str]:
    """The tables routing's SQL reads, named by their models and quoted for this backend."""
    qn = connection.ops.quote_name
    models = {
        "membership": QueueMembership,
        "operator": Operator,
        "availability": OperatorAvailability,
        "queue": Queue,
        "load": OperatorLoad,
        "ticket": Ticket,
    }
    return {key: qn(model._meta.db_table) for key, model in models.items()}


def _sql(template: str) -> str:
    return template.format(**_tables(connection.vendor))


def _placeholders(n: int) -> str:
    return ", ".join(["%s"] * n)


def members(queue_ids: list[int]) -> list[Mapping[str, Any]]:
    """The on-duty human members of these queues, least recently assigned first, as plain
    values: id (the membership), queue_id, operator_id, username, display_name, email,
    cap (their availability's capacity_override, else the queue's capacity_per_operator)
    and load (their active tickets as last committed)."""
    sql = _sql(_MEMBERS_SQL).format(queue_ids=_placeholders(len(queue_ids)))
    with connection.cursor() as cursor:
        cursor.execute(sql, [OperatorKind.HUMAN.value, *queue_ids])
        return [dict(zip(_MEMBER_KEYS, row, strict=True)) for row in cursor.fetchall()]


def lock_loads(operator_ids: Iterable[int]) -> dict[int, int]:
    """Lock the members' load rows in operator order and read them again (a load read
    before the lock may be stale). A member without a row owns no active ticket; the row is
    created first so that it can be locked too (only the first time an operator is a
    routing candidate)."""
    ids = sorted(set(operator_ids))
    sql = _sql(_LOADS_SQL).format(operator_ids=_placeholders(len(ids)))
    with connection.cursor() as cursor:
        cursor.execute(sql, ids)
        loads = dict(cursor.fetchall())
        missing = [pk for pk in ids if pk not in loads]
        if missing:
            OperatorLoad.objects.bulk_create(
                [OperatorLoad(operator_id=pk) for pk in missing], ignore_conflicts=True
            )
            cursor.execute(sql, ids)
            loads = dict(cursor.fetchall())
    return loads


def waiting(queue_id: int, limit: int, *, lock: bool) -> list[tuple[int, int, str]]:
    """The queue's oldest waiting tickets (id, version, subject), at most `limit`. SKIP
    LOCKED (`lock`: the backend locks rows): a ticket an operator is changing right now is
    left for the next pass (see tickets.routing's docstring). Plain SQL for the reason given
    at _MEMBERS_SQL."""
    statuses = [str(status.value) for status in ACTIVE_STATUSES]
    sql = _sql(_WAITING_SQL).format(
        statuses=_placeholders(len(statuses)), lock=" FOR UPDATE SKIP LOCKED" if lock else ""
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [queue_id, *statuses, limit])
        return cursor.fetchall()
