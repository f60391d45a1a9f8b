"""Each operator's active-ticket counter (OperatorLoad): what routing reads instead of
counting tickets. It must equal the count after every kind of change, be repairable, and
make two queues routing to one operator at once respect the operator's cap."""

from __future__ import annotations

import importlib
import threading

import pytest
from django.db import connection, transaction

from identity.models import AuditEvent
from tests.payments_sandbox.concurrency import require_real_connections
from tests.tickets.conftest import join
from tickets import routing, services
from tickets.models import ACTIVE_STATUSES, OperatorAvailability, OperatorLoad, Ticket

load_migration = importlib.import_module("tickets.migrations.0006_operator_load")


def counted(operator) -> int:
    return Ticket.objects.filter(assignee=operator, status__in=ACTIVE_STATUSES).count()


def stored(operator) -> int:
    row = OperatorLoad.objects.filter(operator=operator).first()
    return row.active_tickets if row else 0


def assert_exact(*operators) -> None:
    assert routing.load_recount() == {}, "a counter drifted from the tickets"
    for operator in operators:
        assert stored(operator) == counted(operator)


def test_the_triggers_count_the_same_statuses_as_the_code() -> None:
    expected = "({})".format(", ".join(f"'{s}'" for s in ACTIVE_STATUSES))
    assert expected == load_migration.ACTIVE


def test_the_counter_never_drifts_through_every_service_that_moves_a_ticket(
    queue, other_queue, make_agent, make_ticket, sam
) -> None:
    ann = make_agent("ann", queue)
    ben = make_agent("ben", queue)
    join(ben, other_queue, on_duty=True)
    first, second, third = make_ticket(queue), make_ticket(queue), make_ticket(other_queue)
    assert {first.assignee, second.assignee, third.assignee} == {ann, ben}
    assert_exact(ann, ben)
    first = services.ticket_reassign(
        actor=sam,
        ticket_id=first.pk,
        assignee_id=(ben if first.assignee == ann else ann).pk,
        expected_version=first.version,
    )
    assert_exact(ann, ben)
    first = services.ticket_take(actor=sam, ticket_id=first.pk, expected_version=first.version)
    assert_exact(ann, ben, sam)
    second = services.ticket_status_set(
        actor=sam, ticket_id=second.pk, status="pending_customer", expected_version=second.version
    )
    assert_exact(ann, ben)  # paused is still active: no change
    second = services.ticket_status_set(
        actor=sam, ticket_id=second.pk, status="resolved", expected_version=second.version
    )
    assert_exact(ann, ben)
    services.ticket_customer_message_add(actor=sam, ticket_id=second.pk, body="Still broken.")
    second.refresh_from_db()
    assert second.status == "open"
    assert_exact(ann, ben)  # reopened: counted again
    services.ticket_reply(
        actor=sam,
        ticket_id=second.pk,
        body="Fixed now.",
        expected_version=second.version,
        status="closed",
    )
    assert_exact(ann, ben)
    fourth = make_ticket(queue)
    fourth.refresh_from_db()
    third.refresh_from_db()
    merge_source, merge_target = sorted([fourth, first], key=lambda t: t.pk)
    services.ticket_merge(
        actor=sam,
        source_id=merge_source.pk,
        target_id=merge_target.pk,
        expected_source_version=merge_source.version,
        expected_target_version=merge_target.version,
    )
    assert_exact(ann, ben, sam)
    Ticket.objects.filter(pk=third.pk).delete()
    assert_exact(ann, ben, sam)


def test_recount_repairs_a_counter_and_reports_what_was_wrong(
    queue, make_agent, make_ticket
) -> None:
    ann = make_agent("ann", queue)
    make_ticket(queue)
    make_ticket(queue)
    OperatorLoad.objects.filter(operator=ann).update(active_tickets=7)
    assert routing.load_recount() == {ann.pk: 2}
    assert stored(ann) == 2
    OperatorLoad.objects.filter(operator=ann).delete()
    assert routing.load_recount([ann.pk]) == {ann.pk: 2}
    assert stored(ann) == 2


def test_the_repair_service_corrects_audits_and_routes_freed_capacity(
    queue, make_agent, make_ticket
) -> None:
    ann = make_agent("ann", queue, cap=1)
    make_ticket(queue)
    services.operator_loads_recount()
    assert not AuditEvent.objects.filter(action="ticket.load_recount").exists()
    services.ticket_status_set(
        actor=ann,
        ticket_id=Ticket.objects.get(assignee=ann).pk,
        status="resolved",
        expected_version=Ticket.objects.get(assignee=ann).version,
    )
    OperatorLoad.objects.filter(operator=ann).update(active_tickets=1)  # a drifted counter
    waiting = make_ticket(queue)
    waiting.refresh_from_db()
    assert waiting.assignee is None  # routing trusted the wrong counter
    assert services.operator_loads_recount() == {ann.pk: 0}
    waiting.refresh_from_db()
    assert waiting.assignee == ann
    event = AuditEvent.objects.get(action="ticket.load_recount")
    assert event.after["corrected"] == {str(ann.pk): 0}
    assert event.after["routed"] == [waiting.pk]


def test_routing_reads_the_counter_not_the_tickets(queue, make_agent, make_ticket) -> None:
    ann = make_agent("ann", queue, cap=2)
    make_ticket(queue)
    # Pretend ann holds a full load elsewhere: routing trusts the counter.
    OperatorLoad.objects.filter(operator=ann).update(active_tickets=2)
    waiting = make_ticket(queue)
    waiting.refresh_from_db()
    assert waiting.assignee is None and waiting.unrouted


@pytest.mark.django_db(transaction=True)
def test_two_queues_routing_to_one_operator_at_once_respect_the_cap(
    queue, other_queue, make_agent, make_ticket
) -> None:
    """The race tickets.routing used to document: each queue's pass locked only its own
    queue, so both could see the operator's last free slot. Now the second pass waits on the
    operator's load row until the first commits, then sees the slot taken."""
    require_real_connections()
    ann = make_agent("ann", queue, on_duty=False, cap=1)
    join(ann, other_queue, on_duty=False, cap=1)
    one, two = make_ticket(queue), make_ticket(other_queue)
    OperatorAvailability.objects.filter(operator=ann).update(on_duty=True)
    OperatorLoad.objects.get_or_create(operator=ann)  # as for anyone who held a ticket before
    first_routed, second_waiting, release = threading.Event(), threading.Event(), threading.Event()
    results: dict[str, list[routing.Routed] | BaseException] = {}

    def first() -> None:
        try:
            with transaction.atomic():
                results["first"] = routing.route_queue(queue.pk)
                first_routed.set()
                release.wait(10)
        except BaseException as exc:  # reported below
            results["first"] = exc
        finally:
            first_routed.set()
            connection.close()

    def second() -> None:
        try:
            first_routed.wait(10)
            second_waiting.set()
            with transaction.atomic():
                results["second"] = routing.route_queue(other_queue.pk)
        except BaseException as exc:  # reported below
            results["second"] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    second_waiting.wait(10)
    # Give the second pass time to reach its read of ann's load while the first is still
    # open; whether it got there or not, the assertions below hold only if it waited.
    threading.Event().wait(0.5)
    release.set()
    for thread in threads:
        thread.join(20)
    first_result = results["first"]
    assert not isinstance(first_result, BaseException), first_result
    assert [r.ticket_id for r in first_result] == [one.pk]
    assert results["second"] == []
    assert counted(ann) == 1 and stored(ann) == 1
    two.refresh_from_db()
    assert two.assignee is None and two.unrouted
