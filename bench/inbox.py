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
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is not a package: its scripts import each other from their own directory.
from inbox_seed import FIRST_NAMES, LAST_NAMES, log, seed  # noqa: E402

PG_SERVER = "postgresql://postgres@127.0.0.1:5432"


def setup_on_seeded(*, postgres_db: str | None, sqlite_path: str | None) -> None:
    """Django set up on a database this script seeded (`--postgres-db` or `--sqlite-path`),
    with the test settings; for the scripts that measure one path of it (escalation_sql.py,
    escalation_profile.py)."""
    if postgres_db:
        os.environ["DATABASE_URL"] = f"{PG_SERVER}/{postgres_db}"
    elif sqlite_path:
        os.environ["DATABASE_URL"] = f"sqlite:///{sqlite_path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()


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
    results.update(bench_search_kinds(supervisor, agent_client, n))
    return results


def statements(client: Any, url: str) -> int:
    """SQL statements of one request (session, permissions, the search, its rows)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def bench_search_kinds(supervisor: Any, agent: Any, n: int) -> dict[str, Any]:
    """What operators type (issue 15): a number (a ticket id and a word of one subject), a
    customer's full name, a Chinese substring in one ticket in 1,000 and one in about one
    ticket in ten, an English word of every ticket; first page with its count (capped at
    1,000), newest first, as a supervisor (every ticket) and as a plain agent whose
    visibility is by queue (the page's search view, and the "My queues" tab)."""
    name = quote(f"{FIRST_NAMES[7]} {LAST_NAMES[3]}")
    rare, common = quote("没有到账"), quote("送到")
    cases = {
        "search_number_page1": (supervisor, "view=all&q=12345"),
        "search_customer_name_page1": (supervisor, f"view=all&q={name}"),
        "search_chinese_rare_page1": (supervisor, f"view=all&q={rare}"),
        "search_chinese_common_page1": (supervisor, f"view=all&q={common}"),
        "search_english_word_every_ticket_page1": (supervisor, "view=all&q=voucher"),
        "search_agent_number_page1": (agent, "view=search&q=12345"),
        "search_agent_customer_name_page1": (agent, f"view=search&q={name}"),
        "search_agent_chinese_common_page1": (agent, f"view=search&q={common}"),
        "search_agent_queues_chinese_common_page1": (agent, f"view=queues&q={common}"),
        "search_agent_english_word_every_ticket_page1": (agent, "view=search&q=voucher"),
    }
    results: dict[str, Any] = {}
    for key, (client, query) in cases.items():
        url = f"/api/v1/tickets?{query}"
        results[key] = timed(client, url, max(20, n // 2), warmup=2)
        results[key]["statements"] = statements(client, url)
        results[key]["count"] = client.get(url).json()["count"]
    return results


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
        help="only the search figures of what operators type (number, name, Chinese, a word)",
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
        results.update(bench_search_kinds(supervisor, agent_client, args.requests))
        print(json.dumps(results, indent=2))
        return
    if not args.escalations_only:
        results.update(bench_latency(supervisor, agent_client, ids, args.requests))
    log(f"{backend}: escalations")
    results["escalations"] = bench_escalations(args.escalations, args.processes)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
