"""The seed of bench/inbox.py: tickets, messages and events in bulk (COPY on PostgreSQL, one
unsynced transaction on SQLite), with the search documents built once afterwards by the
search migration's own statements and checked against documents written row by row."""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# Customers' names (100 x 100 pairs, so a full name is shared by 1 customer in 10,000) and
# the Chinese that customers write: one message in 20 holds one of these phrases, and the
# first message of one ticket in 1,000 says its refund has not arrived.
FIRST_NAMES = [
    f"{a}{b}"
    for a in ("Al", "Be", "Ca", "Da", "El", "Fa", "Gi", "Ha", "Io", "Ju")
    for b in ("na", "ro", "lis", "mon", "ther", "vin", "dra", "ko", "sef", "ria")
]
LAST_NAMES = [
    f"{a}{b}"
    for a in ("Lind", "Mor", "Hart", "Quin", "Rosen", "Sato", "Wen", "Bauer", "Costa", "Novak")
    for b in ("berg", "ley", "well", "ton", "feld", "mann", "sen", "ford", "ez", "ski")
]
CHINESE = [
    "包裹还没有送到",
    "请尽快处理我的订单",
    "发票抬头写错了",
    "优惠券不能使用",
    "会员续费失败",
]


def _body(rng: random.Random, words: list[str], ticket_id: int, k: int) -> str:
    body = " ".join(rng.choice(words) for _ in range(25))
    if k == 0 and ticket_id % 1000 == 0:
        return f"退款没有到账 订单 W{ticket_id} {body}"
    if rng.randrange(20) == 0:
        return f"{body} {rng.choice(CHINESE)}"
    return body


# The search documents' triggers (tickets migrations 0008/0009) rebuild a ticket's document
# on every message insert: on SQLite once per row, so a ticket's ten messages rebuild it ten
# times, each reading all its messages again (a million rebuilds at 1M messages; the seed
# took over ten minutes). The bulk load runs without them and builds every document once
# afterwards, with the migration's own statements (verify_search_documents checks the
# result against documents the triggers write).
_SEARCH_MIGRATION = "tickets.migrations.0009_search_customers_and_cjk"
_PG_SEARCH_TRIGGERS = [
    ("tickets_message", "tickets_search_messages_inserted"),
    ("tickets_ticket", "tickets_search_ticket_inserted"),
]


@contextlib.contextmanager
def search_documents_built_after() -> Iterator[None]:
    """Inside: inserts leave the search documents alone. On exit: the triggers are back and
    every ticket's document is built, as migration 0009 builds them for existing rows."""
    from importlib import import_module

    from django.db import connection

    migration = import_module(_SEARCH_MIGRATION)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for table, trigger in _PG_SEARCH_TRIGGERS:
                cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
        else:
            for name in migration._SQLITE_TRIGGERS:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
    yield
    started = time.perf_counter()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for table, trigger in _PG_SEARCH_TRIGGERS:
                cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
            cursor.execute("SELECT tickets_search_refresh(ARRAY(SELECT id FROM tickets_ticket))")
        else:
            # The migration's list: the triggers again, then every document rebuilt.
            for sql in migration.SQLITE:
                cursor.execute(sql)
    log(f"search documents built in {time.perf_counter() - started:.0f} s")


@contextlib.contextmanager
def sqlite_bulk_load() -> Iterator[None]:
    """SQLite: the whole load in one transaction without fsyncs (a crash mid-seed loses a
    benchmark database, nothing else); the settings' WAL and synchronous=NORMAL after."""
    from django.db import connection, transaction

    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous=OFF")
        cursor.execute("PRAGMA cache_size=-262144")  # 256 MiB
    with transaction.atomic():
        yield
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous=NORMAL")


def _search_document(ticket_id: int) -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT document::text FROM tickets_ticketsearch WHERE ticket_id = %s",
                [ticket_id],
            )
        else:
            cursor.execute(
                "SELECT document FROM tickets_ticket_search WHERE rowid = %s", [ticket_id]
            )
        row = cursor.fetchone()
    assert row is not None, f"ticket {ticket_id} has no search document"
    return str(row[0])


def verify_search_documents(sample: int = 20) -> dict[str, Any]:
    """The bulk-built documents are those the app writes: `sample` seeded tickets are copied
    row by row with the triggers on (the ticket, then each message, as services insert them)
    and each copy's document must equal its original's; then the app's own search
    (ticket_list_for_inbox) must find each original by its subject's number, its customer's
    name and, where it has some, its Chinese. The copies are deleted afterwards."""
    from django.db import transaction

    from identity.models import Operator
    from tickets.models import Message, Ticket
    from tickets.selectors import ticket_list_for_inbox

    rng = random.Random(3)
    last = Ticket.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    ids = sorted(rng.sample(range(1, last + 1), min(sample, last)))
    ids.append(1000 if last >= 1000 else ids[0])  # one with the rare Chinese phrase
    sam = Operator.objects.get(username="sam")
    searched = 0
    for ticket_id in ids:
        original = Ticket.objects.select_related("customer").get(pk=ticket_id)
        messages = list(Message.objects.filter(ticket_id=ticket_id).order_by("id"))
        with transaction.atomic():
            copy = Ticket.objects.get(pk=ticket_id)
            copy.pk = None
            copy.save(force_insert=True)
            for message in messages:
                message.pk = None
                message.ticket_id = copy.pk
                message.save(force_insert=True)
            copied, seeded = _search_document(copy.pk), _search_document(ticket_id)
            Message.objects.filter(ticket_id=copy.pk).delete()
            Ticket.objects.filter(pk=copy.pk).delete()
        assert copied == seeded, f"ticket {ticket_id}: bulk document differs from the triggers'"
        searches = [original.subject.split()[-1], original.customer.name]
        chinese = [m.body.split()[0] for m in messages if m.body.startswith("退款")]
        chinese += [phrase for m in messages for phrase in CHINESE if m.body.endswith(phrase)]
        searches += chinese[:2]
        for q in searches:
            found = ticket_list_for_inbox(operator=sam, view="all", search=q)
            assert found.filter(pk=ticket_id).exists(), f"search {q!r} misses ticket {ticket_id}"
            searched += 1
    return {"tickets_compared": len(ids), "searches_checked": searched}


def insert_rows(model: Any, rows: Iterable[dict[str, Any]]) -> None:
    """Insert `rows` (dicts by column attname) into `model`'s table without model instances:
    COPY on PostgreSQL, one executemany on SQLite. A column a row leaves out gets its
    field's default (prepared once); datetimes are adapted as the ORM adapts them; generated
    columns are the database's. Triggers fire as for any insert."""
    from django.db import connection

    fields = [f for f in model._meta.concrete_fields if not f.generated]
    defaults = {
        f.attname: f.get_db_prep_save(f.get_default(), connection) if f.has_default() else None
        for f in fields
    }
    stamps = {f.attname for f in fields if f.get_internal_type() == "DateTimeField"}
    adapt = connection.ops.adapt_datetimefield_value
    names = [f.attname for f in fields]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    rows = list(rows)
    if rows and "id" not in rows[0]:
        names.remove("id")
        columns = ", ".join(
            connection.ops.quote_name(f.column) for f in fields if f.attname != "id"
        )

    def values(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(
            (adapt(row[n]) if n in stamps and row[n] is not None else row[n])
            if n in row
            else defaults[n]
            for n in names
        )

    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(values(row))
        else:
            marks = ", ".join(["%s"] * len(names))
            cursor.executemany(
                f"INSERT INTO {table} ({columns}) VALUES ({marks})", [values(r) for r in rows]
            )


def reset_sequences(*models: Any) -> None:
    """After rows inserted with explicit ids: PostgreSQL's id sequences go past them (SQLite
    keeps AUTOINCREMENT's counter itself)."""
    from django.core.management.color import no_style
    from django.db import connection

    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), list(models)):
            cursor.execute(sql)


def seed(n_tickets: int, per_ticket: int) -> dict[str, Any]:
    from django.db import connection
    from django.utils import timezone

    from identity import roles
    from identity.models import Operator, Role
    from tickets.models import (
        ACTIVE_STATUSES,
        Customer,
        Message,
        MessageKind,
        OperatorAvailability,
        Priority,
        Queue,
        QueueMembership,
        Status,
        Tag,
        Ticket,
        TicketEvent,
    )

    rng = random.Random(7)
    roles.sync_roles()
    agents = []
    for i in range(20):
        op = Operator.objects.create_user(
            username=f"agent{i:02d}", email=f"agent{i:02d}@example.test", password="x" * 16
        )
        roles.grant(op, Role.AGENT)
        agents.append(op)
    sam = Operator.objects.create_user(username="sam", email="sam@example.test", password="x" * 16)
    roles.grant(sam, Role.SUPERVISOR)
    queues = [
        Queue.objects.create(name=name, slug=slug, capacity_per_operator=1_000_000)
        for name, slug in [
            ("Returns & refunds", "returns"),
            ("Billing", "billing"),
            ("Memberships", "memberships"),
            ("General", "general"),
        ]
    ]
    for index, agent in enumerate(agents):
        for queue in (queues[index % 4], queues[(index + 1) % 4]):
            QueueMembership.objects.create(queue=queue, operator=agent)
        OperatorAvailability.objects.create(operator=agent, on_duty=True)
    tags = Tag.objects.bulk_create([Tag(name=f"tag-{i}") for i in range(50)])
    customers = Customer.objects.bulk_create(
        [
            Customer(
                name=f"{FIRST_NAMES[i % len(FIRST_NAMES)]} {LAST_NAMES[i // len(FIRST_NAMES) % len(LAST_NAMES)]}",
                email=f"c{i}@example.test",
                external_id=f"ext-{i}",
            )
            for i in range(max(1, n_tickets // 5))
        ],
        batch_size=5000,
    )
    words = [
        "parcel",
        "refund",
        "invoice",
        "charge",
        "delivery",
        "voucher",
        "membership",
        "renewal",
        "cancel",
        "return",
        "exchange",
        "damaged",
        "missing",
        "tracking",
        "discount",
        "card",
        "payment",
        "address",
        "account",
        "password",
    ]
    kinds = [
        kind.value
        for kind in (
            MessageKind.CUSTOMER,
            MessageKind.AI_AGENT,
            MessageKind.PUBLIC_REPLY,
            MessageKind.CUSTOMER,
            MessageKind.INTERNAL_NOTE,
            MessageKind.PUBLIC_REPLY,
            MessageKind.SYSTEM,
            MessageKind.CUSTOMER,
            MessageKind.PUBLIC_REPLY,
            MessageKind.INTERNAL_NOTE,
        )
    ]
    authored = (MessageKind.PUBLIC_REPLY.value, MessageKind.INTERNAL_NOTE.value)
    statuses = list(ACTIVE_STATUSES) + [Status.RESOLVED] * 4 + [Status.CLOSED] * 2
    priorities = [Priority.LOW, Priority.NORMAL, Priority.NORMAL, Priority.HIGH, Priority.URGENT]
    now = timezone.now()
    batch = 10_000
    started = time.perf_counter()
    through = Ticket.tags.through
    first_id = (Ticket.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    with sqlite_bulk_load(), search_documents_built_after():
        for offset in range(0, n_tickets, batch):
            size = min(batch, n_tickets - offset)
            tickets: list[dict[str, Any]] = []
            for i in range(offset, offset + size):
                created = now - dt.timedelta(seconds=(n_tickets - i) * 60)
                assignee = None if i % 10 == 0 else agents[rng.randrange(20)].pk
                status = statuses[rng.randrange(len(statuses))]
                tickets.append(
                    {
                        "id": first_id + i,
                        "subject": f"{rng.choice(words).title()} {rng.choice(words)} issue {i}",
                        "customer_id": customers[i % len(customers)].pk,
                        "queue_id": queues[i % 4].pk,
                        "assignee_id": assignee,
                        "assigned_at": created if assignee else None,
                        "unrouted": assignee is None and status in ACTIVE_STATUSES,
                        "status": status.value,
                        "priority": priorities[i % 5].value,
                        "channel": "email",
                        "created_at": created,
                        "updated_at": created + dt.timedelta(minutes=per_ticket),
                        "last_customer_message_at": created,
                        "first_responded_at": created + dt.timedelta(minutes=2),
                        "resolution_due_at": created + dt.timedelta(hours=24),
                        "sla_next_due_at": created + dt.timedelta(hours=24)
                        if status in ACTIVE_STATUSES
                        else None,
                        "sla_breached": status in ACTIVE_STATUSES and i % 7 == 0,
                        "version": 3,
                    }
                )
            insert_rows(Ticket, tickets)
            insert_rows(
                through,
                ({"ticket_id": t["id"], "tag_id": tags[t["id"] % 50].pk} for t in tickets),
            )
            insert_rows(
                TicketEvent,
                (
                    {
                        "ticket_id": t["id"],
                        "kind": kind,
                        "actor_label": "Seed",
                        "summary": summary,
                        "version": v,
                        "created_at": t["created_at"],
                    }
                    for t in tickets
                    for kind, summary, v in (("created", "Created", 1), ("assignee", "Routed", 2))
                ),
            )
            insert_rows(
                Message,
                (
                    {
                        "ticket_id": t["id"],
                        "kind": kinds[k % 10],
                        "author_id": t["assignee_id"] if kinds[k % 10] in authored else None,
                        "author_label": "" if t["assignee_id"] else "Customer",
                        "body": _body(rng, words, t["id"], k),
                        "created_at": t["created_at"] + dt.timedelta(minutes=k),
                    }
                    for t in tickets
                    for k in range(per_ticket)
                ),
            )
            done = offset + size
            if done % 20_000 == 0 or done == n_tickets:
                log(
                    f"seeded {done} tickets, {done * per_ticket} messages"
                    f" ({time.perf_counter() - started:.0f} s)"
                )
        reset_sequences(Ticket, through, TicketEvent, Message)
    with connection.cursor() as cursor:
        # A live database is autovacuumed; right after a bulk load the visibility map is
        # empty and PostgreSQL's COUNTs cannot use index-only scans until VACUUM runs.
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")
    seconds = time.perf_counter() - started
    checked = verify_search_documents()
    log(f"search documents checked: {checked}")
    return {
        "search_documents_checked": checked,
        "tickets": Ticket.objects.count(),
        "messages": Message.objects.count(),
        "events": TicketEvent.objects.count(),
        "seconds": round(seconds, 1),
        "agents": agents,
        "sam": sam,
    }
