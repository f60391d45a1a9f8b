"""The hand-written SQL on the escalation path against its ORM equivalent, site by site:
CPU per call (this process: building the query, adapting parameters, reading rows) and
statements per call, alternated round by round on the same database.

    .venv/bin/python bench/escalation_sql.py --postgres-db bo_bench_inbox   # after
        bench/inbox.py --postgres --escalations-only (reuses its seeded database)

Every call runs inside one transaction that is rolled back at the end, so the database is
left as it was. Sites: the escalation's queue with its SLA targets
(tickets.services.escalations._escalation_queue), routing's three reads
(tickets.routing_reads: members, lock_loads, waiting) and the new ticket's tags
(tickets.services.tags.link_new_ticket_tags). The ORM versions are the ones orm19 wrote.
Prints one JSON document: {site: {"sql": {...}, "orm": {...}}}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inbox import setup_on_seeded  # noqa: E402


def orm_escalation_queue(slug: str, priority: str) -> tuple[Any, Any]:
    from django.db.models import F, FilteredRelation, Q

    from tickets import routing, sla
    from tickets.models import Queue

    queues = Queue.objects.annotate(
        sla=FilteredRelation("sla_targets", condition=Q(sla_targets__priority=priority)),
        first=F("sla__first_response_minutes"),
        next_=F("sla__next_response_minutes"),
        resolution=F("sla__resolution_minutes"),
    ).order_by()
    if routing.locks():
        queues = queues.select_for_update(of=("self",))
    found = queues.filter(slug=slug).first()
    assert found is not None
    if found.first is None:
        return found, sla.targets_for(priority)
    return found, sla.Targets(found.first, found.next_, found.resolution)


def orm_escalation_queue_two_reads(slug: str, priority: str) -> tuple[Any, Any]:
    """The plainest ORM: the queue locked, then its SLA row (one statement more)."""
    from tickets import routing, sla
    from tickets.models import Queue, SlaTarget

    queues = Queue.objects.all()
    if routing.locks():
        queues = queues.select_for_update()
    queue = queues.get(slug=slug)
    row = SlaTarget.objects.filter(queue_id=queue.pk, priority=priority).first()
    if row is None:
        return queue, sla.targets_for(priority)
    return queue, sla.Targets(
        row.first_response_minutes, row.next_response_minutes, row.resolution_minutes
    )


def orm_members(queue_ids: list[int]) -> list[Mapping[str, Any]]:
    from django.db.models import F
    from django.db.models.functions import Coalesce

    from identity.models import OperatorKind
    from tickets.models import QueueMembership

    return list(
        QueueMembership.objects.filter(
            queue_id__in=queue_ids,
            operator__availability__on_duty=True,
            operator__is_active=True,
            operator__kind=OperatorKind.HUMAN,
        )
        .order_by(F("last_assigned_at").asc(nulls_first=True), "joined_at", "id")
        .values(
            "id",
            "queue_id",
            "operator_id",
            username=F("operator__username"),
            display_name=F("operator__display_name"),
            email=F("operator__email"),
            cap=Coalesce(
                "operator__availability__capacity_override", "queue__capacity_per_operator"
            ),
            load=Coalesce("operator__ticket_load__active_tickets", 0),
        )
    )


def orm_lock_loads(operator_ids: list[int]) -> dict[int, int]:
    from tickets.models import OperatorLoad

    return dict(
        OperatorLoad.objects.select_for_update()
        .filter(operator_id__in=sorted(set(operator_ids)))
        .order_by("operator_id")
        .values_list("operator_id", "active_tickets")
    )


def orm_waiting(queue_id: int, limit: int) -> list[tuple[int, int, str]]:
    from tickets import routing
    from tickets.models import ACTIVE_STATUSES, Ticket

    waiting = Ticket.objects.filter(
        assignee__isnull=True, queue_id=queue_id, status__in=ACTIVE_STATUSES, unrouted=True
    ).order_by("created_at", "id")
    if routing.locks():
        waiting = waiting.select_for_update(skip_locked=True)
    return list(waiting.values_list("id", "version", "subject")[:limit])


def orm_link_tags(ticket_id: int, names: list[str]) -> None:
    from tickets.models import Ticket
    from tickets.services.tags import tags_get_or_create

    through = Ticket.tags.through
    through.objects.bulk_create(
        [through(ticket_id=ticket_id, tag_id=tag.pk) for tag in tags_get_or_create(names)]
    )


def measure(call: Callable[[], Any], undo: Callable[[], Any] | None, n: int) -> tuple[float, float]:
    """CPU microseconds per call (the median of 5 blocks of n/5) and statements per call."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        call()
    statements = len(captured.captured_queries)
    if undo:
        undo()
    blocks = []
    for _ in range(5):
        spent = 0.0
        for _ in range(n // 5):
            start = time.process_time()
            call()
            spent += time.process_time() - start
            if undo:
                undo()
        blocks.append(spent * 1e6 / (n // 5))
    return statistics.median(blocks), statements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres-db", help="a database bench/inbox.py seeded")
    parser.add_argument("--sqlite-path", help="a SQLite file bench/inbox.py seeded")
    parser.add_argument("--n", type=int, default=1000, help="calls per site and round")
    parser.add_argument("--rounds", type=int, default=2, help="SQL/ORM alternations")
    args = parser.parse_args()
    setup_on_seeded(postgres_db=args.postgres_db, sqlite_path=args.sqlite_path)
    from django.db import transaction

    from tickets import routing, routing_reads
    from tickets.models import Queue, Ticket
    from tickets.services import escalations
    from tickets.services import tags as tagging

    queue = Queue.objects.get(slug="billing")
    members = routing_reads.members([queue.pk])
    operator_ids = [m["operator_id"] for m in members]
    assert operator_ids
    names = ["ai-escalation", "dispute"]
    through = Ticket.tags.through
    # A ticket whose tags the calls replace (restored by the rollback at the end).
    ticket_id = Ticket.objects.values_list("pk", flat=True).first()
    assert ticket_id is not None
    through.objects.filter(ticket_id=ticket_id).delete()

    def untag() -> None:
        through.objects.filter(ticket_id=ticket_id).delete()

    sites: dict[str, dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]]] = {
        "escalation_queue": {
            "sql": (lambda: escalations._escalation_queue("billing", "urgent"), None),
            "orm": (lambda: orm_escalation_queue("billing", "urgent"), None),
            "orm_two_reads": (lambda: orm_escalation_queue_two_reads("billing", "urgent"), None),
        },
        "members": {
            "sql": (lambda: routing_reads.members([queue.pk]), None),
            "orm": (lambda: orm_members([queue.pk]), None),
        },
        "lock_loads": {
            "sql": (lambda: routing_reads.lock_loads(operator_ids), None),
            "orm": (lambda: orm_lock_loads(operator_ids), None),
        },
        "waiting": {
            "sql": (lambda: routing_reads.waiting(queue.pk, 10, lock=routing.locks()), None),
            "orm": (lambda: orm_waiting(queue.pk, 10), None),
        },
        "link_tags": {
            "sql": (lambda: tagging.link_new_ticket_tags(ticket_id, names), untag),
            "orm": (lambda: orm_link_tags(ticket_id, names), untag),
        },
    }
    assert routing_reads.members([queue.pk]) == orm_members([queue.pk])
    results: dict[str, dict[str, Any]] = {site: {} for site in sites}
    with transaction.atomic():
        for round_ in range(args.rounds):
            for site, variants in sites.items():
                order = list(variants) if round_ % 2 == 0 else list(reversed(variants))
                for variant in order:
                    call, undo = variants[variant]
                    cpu_us, statements = measure(call, undo, args.n)
                    entry = results[site].setdefault(variant, {"cpu_us": [], "statements": 0})
                    entry["cpu_us"].append(round(cpu_us, 1))
                    entry["statements"] = statements
            print(f"round {round_ + 1} done", file=sys.stderr)
        transaction.set_rollback(True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
