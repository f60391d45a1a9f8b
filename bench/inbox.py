"""Inbox benchmark: 100,000 tickets and 1,000,000 messages, then API latency and the
AI agent's escalation throughput.

    .venv/bin/python bench/inbox.py                      # SQLite (a temporary file)
    .venv/bin/python bench/inbox.py --postgres           # database bo_bench_inbox (--postgres-db)
    .venv/bin/python bench/inbox.py --tickets 10000 --messages-per-ticket 10   # smaller

Measures, through the REST API with Django's test client (full middleware, session or
token authentication, serializers; no network):
  - GET /api/v1/tickets?view=all, pages 1 and 2 (a supervisor), and
    GET /api/v1/tickets?view=queues pages 1 and 2 (an agent: visibility via queue
    membership), each p50/p95 over --requests calls;
  - GET /api/v1/tickets/<id> for random tickets (10 messages and 2 events each), p50/p95;
  - GET /api/v1/tickets?q=... full-text search (subjects, customers and messages): words,
    a number, a customer's name, Chinese substrings, p50/p95 (--search-only: only the
    last four);
  - POST /api/v1/escalations, sequential and from --processes clients at once, each with
    its own Idempotency-Key: created/s, CPU ms and SQL statements per escalation. The
    assignment e-mail task is deferred as a real broker would defer it (eager Celery would
    run it inside the request); those tasks run afterwards and their CPU cost is reported
    apart ("deferred_email").
Prints one JSON document on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG_SERVER = "postgresql://postgres@127.0.0.1:5432"


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def configure(args: argparse.Namespace, prefix: str = "bench-inbox-") -> str:
    """Point DATABASE_URL at the bench database (PostgreSQL or a SQLite file), fresh unless
    --reuse; bench/run_pages.py shares it."""
    if args.postgres:
        import psycopg

        if not args.reuse:
            with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as c:
                c.execute(f'DROP DATABASE IF EXISTS "{args.postgres_db}"')
                c.execute(f'CREATE DATABASE "{args.postgres_db}"')
        os.environ["DATABASE_URL"] = f"{PG_SERVER}/{args.postgres_db}"
        return "postgresql"
    if args.sqlite_path:
        path = Path(args.sqlite_path)
        if not args.reuse:
            for leftover in path.parent.glob(path.name + "*"):
                leftover.unlink()
    else:
        path = Path(tempfile.mkdtemp(prefix=prefix)) / "bench.sqlite3"
    os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    return "sqlite"


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))
    return ordered[index]


def timed(client: Any, url: str, n: int, warmup: int = 10) -> dict[str, float]:
    for _ in range(warmup):
        assert client.get(url).status_code == 200
    wall, cpu = [], []
    for _ in range(n):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200, response.content[:300]
    return summary(wall, cpu)


def summary(wall: list[float], cpu: list[float]) -> dict[str, float]:
    """Wall-clock p50/p95, and the same for this process's CPU time (Django, the API and,
    on SQLite, the database engine; on PostgreSQL the server's own work is not included):
    on a shared, busy machine the CPU figures show what the code costs, the wall figures
    what a caller waited."""
    return {
        "p50_ms": round(statistics.median(wall), 2),
        "p95_ms": round(percentile(wall, 95), 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "cpu_p95_ms": round(percentile(cpu, 95), 2),
        "n": len(wall),
    }


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


ESCALATION = {
    "customer": {"name": "Bench Customer", "email": "bench@example.test"},
    "category": "dispute",
    "reason": "Customer disputes a charge.",
    "summary": "Charged twice for an order.",
    "transcript": [
        {"role": "customer", "content": "You charged me twice."},
        {"role": "assistant", "content": "I see two charges; passing you to a colleague."},
        {"role": "customer", "content": "Please hurry."},
        {"role": "assistant", "content": "A colleague will reply shortly."},
    ],
    "requested_action": "Refund the duplicate charge",
    "queue": "billing",
}


@contextlib.contextmanager
def broker_deferred_email() -> Iterator[list[int]]:
    """What a real broker does to the request path: the assignment e-mail task is handed
    over on commit (`.delay`) and runs later in a worker, not inside the request as eager
    Celery (the test settings) would run it. Collects the notification ids instead; the
    caller runs those tasks afterwards (measured apart, see run_deferred_email)."""
    from unittest import mock

    from tickets import tasks

    queued: list[int] = []
    with mock.patch.object(tasks.notification_email_send, "delay", side_effect=queued.append):
        yield queued


def run_deferred_email(notification_ids: list[int]) -> dict[str, Any]:
    """Run the deferred e-mail tasks as a worker would (one by one), with their CPU cost."""
    from tickets.tasks import notification_email_send

    start_cpu = time.process_time()
    sent = sum(bool(notification_email_send.apply(args=(i,)).get()) for i in notification_ids)
    cpu = time.process_time() - start_cpu
    return {
        "tasks": len(notification_ids),
        "sent": sent,
        "cpu_ms_each": round(cpu * 1000 / max(1, len(notification_ids)), 2),
    }


def _post_escalations(raw: str, prefix: str, n: int) -> tuple[int, list[int]]:
    """`n` escalations; returns how many got an owner and the deferred e-mail tasks."""
    from tests.conftest import token_client

    client = token_client(raw)
    owners = 0
    with broker_deferred_email() as queued:
        for i in range(n):
            response = client.post(
                "/api/v1/escalations",
                ESCALATION,
                format="json",
                HTTP_IDEMPOTENCY_KEY=f"{prefix}-{i}",
            )
            assert response.status_code == 201, response.content[:300]
            assert not response.has_header("Idempotent-Replayed"), "measured a replay"
            owners += response.json()["owner"] is not None
    return owners, queued


def _statements_per_escalation(raw: str, key: str) -> int:
    """SQL statements one escalation sends, the whole request (token, idempotency claim,
    the service, the audit chain, the idempotency completion, BEGIN/COMMIT included)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.conftest import token_client

    client = token_client(raw)
    with broker_deferred_email(), CaptureQueriesContext(connection) as captured:
        response = client.post(
            "/api/v1/escalations", ESCALATION, format="json", HTTP_IDEMPOTENCY_KEY=key
        )
    assert response.status_code == 201, response.content[:300]
    return len(captured.captured_queries)


def _worker(args: tuple[str, str, str, int]) -> tuple[int, list[int]]:
    database_url, raw, prefix, n = args
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django
    from django.apps import apps

    if not apps.ready:  # pool processes are reused across tasks
        django.setup()
    return _post_escalations(raw, prefix, n)


def bench_escalations(n: int, processes: int) -> dict[str, Any]:
    """Sequential from one client, then `processes` clients at once (separate processes,
    like separate web workers), each escalation with its own Idempotency-Key."""
    import multiprocessing

    from django.db import connections

    from tests.conftest import make_service_token

    _, raw = make_service_token(["escalations:create", "tickets:read"])
    # Keys unique to this run: a reused database still holds the last run's keys, and
    # resending those would measure idempotent replays, not escalations.
    run = uuid.uuid4().hex[:12]
    _, queued = _post_escalations(raw, f"{run}-warm", 5)
    statements = _statements_per_escalation(raw, f"{run}-count")
    start, start_cpu = time.perf_counter(), time.process_time()
    owners, sequential_queued = _post_escalations(raw, f"{run}-seq", n)
    sequential = n / (time.perf_counter() - start)
    cpu_ms = (time.process_time() - start_cpu) * 1000 / n
    queued += sequential_queued
    connections.close_all()
    per_worker = max(1, n // processes)
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes) as pool:
        for _, warm_queued in pool.map(
            _worker,
            [(os.environ["DATABASE_URL"], raw, f"{run}-warm{w}", 2) for w in range(processes)],
        ):
            queued += warm_queued
        start = time.perf_counter()
        results = pool.map(
            _worker,
            [
                (os.environ["DATABASE_URL"], raw, f"{run}-par{w}", per_worker)
                for w in range(processes)
            ],
        )
        concurrent = per_worker * processes / (time.perf_counter() - start)
    routed = [owners for owners, _ in results]
    queued += [i for _, worker_queued in results for i in worker_queued]
    return {
        "sequential_per_second": round(sequential, 1),
        "sequential_created": n,
        "sequential_cpu_ms_each": round(cpu_ms, 2),
        "statements_each": statements,
        "concurrent_per_second": round(concurrent, 1),
        "concurrent_processes": processes,
        "concurrent_created": per_worker * processes,
        "routed_to_an_owner": owners + sum(routed),
        # Not in the figures above, as with a real broker: the assignment e-mails, run
        # afterwards as a worker would run them.
        "deferred_email": run_deferred_email(queued),
    }


def bench_latency(supervisor: Any, agent_client: Any, ids: list[int], n: int) -> dict[str, Any]:
    """List pages, ticket detail and search through the API, p50/p95 wall and CPU."""
    rng = random.Random(11)
    results: dict[str, Any] = {
        "list_all_page1": timed(supervisor, "/api/v1/tickets?view=all", n),
        "list_all_page2": timed(supervisor, "/api/v1/tickets?view=all&page=2", n),
        "list_all_by_priority_page1": timed(
            supervisor, "/api/v1/tickets?view=all&sort=priority", n
        ),
        "list_agent_queues_page1": timed(agent_client, "/api/v1/tickets?view=queues", n),
        "list_agent_queues_page2": timed(agent_client, "/api/v1/tickets?view=queues&page=2", n),
        "list_agent_mine_page1": timed(agent_client, "/api/v1/tickets?view=mine", n),
    }
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(10):
        supervisor.get(f"/api/v1/tickets/{rng.choice(ids)}")
    for _ in range(n):
        url = f"/api/v1/tickets/{rng.choice(ids)}"
        start, start_cpu = time.perf_counter(), time.process_time()
        response = supervisor.get(url)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        assert response.status_code == 200
    results["ticket_detail"] = summary(wall, cpu)
    # Full-text search (FTS5 on SQLite, GIN tsvector on PostgreSQL), first page with its
    # count: a selective search (words of one subject, as operators type them), the same for
    # an agent (visibility through queue membership applies), and the worst case of this
    # synthetic data: a word that occurs in nearly every message.
    results["search_selective_page1"] = timed(
        supervisor, "/api/v1/tickets?view=all&q=issue%2012345", max(20, n // 2), warmup=2
    )
    results["search_selective_agent_queues_page1"] = timed(
        agent_client, "/api/v1/tickets?view=queues&q=issue%2012345", max(20, n // 2), warmup=2
    )
    results["search_common_word_page1"] = timed(
        supervisor, "/api/v1/tickets?view=all&q=voucher", max(5, n // 20), warmup=1
    )
    results.update(bench_search_kinds(supervisor, n))
    return results


def bench_search_kinds(supervisor: Any, n: int) -> dict[str, Any]:
    """What operators type (issue 15): a number (a ticket id and a word of one subject), a
    customer's full name, a Chinese substring in one ticket in 1,000 and one in about one
    ticket in ten; first page with its count, as a supervisor (every ticket)."""
    name = f"{FIRST_NAMES[7]} {LAST_NAMES[3]}"
    return {
        "search_number_page1": timed(
            supervisor, "/api/v1/tickets?view=all&q=12345", max(20, n // 2), warmup=2
        ),
        "search_customer_name_page1": timed(
            supervisor, f"/api/v1/tickets?view=all&q={quote(name)}", max(20, n // 2), warmup=2
        ),
        "search_chinese_rare_page1": timed(
            supervisor, f"/api/v1/tickets?view=all&q={quote('没有到账')}", max(20, n // 2), warmup=2
        ),
        "search_chinese_common_page1": timed(
            supervisor, f"/api/v1/tickets?view=all&q={quote('送到')}", max(20, n // 2), warmup=2
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument(
        "--postgres-db", default="bo_bench_inbox", help="database name (with --postgres)"
    )
    parser.add_argument("--sqlite-path", help="SQLite file to use (default: a temporary one)")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure an existing seeded database (migrations still run) instead of seeding",
    )
    parser.add_argument("--tickets", type=int, default=100_000)
    parser.add_argument("--messages-per-ticket", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--escalations", type=int, default=500)
    parser.add_argument("--processes", type=int, default=4, help="concurrent escalation clients")
    parser.add_argument(
        "--escalations-only", action="store_true", help="skip the list/detail/search figures"
    )
    parser.add_argument(
        "--search-only",
        action="store_true",
        help="only the search figures of what operators type (number, name, Chinese)",
    )
    args = parser.parse_args()
    backend = configure(args)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()
    log(f"{backend}: migrating")
    call_command("migrate", verbosity=0)
    from django.db import connection
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from identity.models import Operator
    from tests.conftest import verified_client
    from tickets.models import Message, Ticket, TicketEvent

    if args.reuse and Ticket.objects.exists():
        log(f"{backend}: reusing the seeded database")
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")
        seeded: dict[str, Any] = {
            "tickets": Ticket.objects.count(),
            "messages": Message.objects.count(),
            "events": TicketEvent.objects.count(),
            "seconds": None,
            "reused": True,
        }
        sam, agent = Operator.objects.get(username="sam"), Operator.objects.get(username="agent00")
    else:
        log(f"{backend}: seeding {args.tickets} tickets x {args.messages_per_ticket} messages")
        seeded = seed(args.tickets, args.messages_per_ticket)
        sam, agent = seeded.pop("sam"), seeded.pop("agents")[0]
    for op in (sam, agent):
        TOTPDevice.objects.get_or_create(user=op, name="default", defaults={"confirmed": True})
    supervisor, agent_client = verified_client(sam, api=True), verified_client(agent, api=True)

    ids = list(Ticket.objects.values_list("pk", flat=True))
    log(f"{backend}: measuring")
    results: dict[str, Any] = {"backend": backend, "seed": seeded}
    if args.search_only:
        results.update(bench_search_kinds(supervisor, args.requests))
        print(json.dumps(results, indent=2))
        return
    if not args.escalations_only:
        results.update(bench_latency(supervisor, agent_client, ids, args.requests))
    log(f"{backend}: escalations")
    results["escalations"] = bench_escalations(args.escalations, args.processes)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
