"""SLA arithmetic (pure) and the services' use of it under a frozen clock."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from tests.tickets.conftest import join
from tickets import services, sla
from tickets.models import Priority, SlaTarget, Ticket

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
NORMAL = sla.DEFAULT_TARGETS["normal"]  # 240 / 480 / 1440 minutes


def minutes(n: float) -> dt.timedelta:
    return dt.timedelta(minutes=n)


def test_start_sets_first_response_and_resolution_from_creation() -> None:
    clock = sla.start(T0, NORMAL)
    assert clock.first_response_due == T0 + minutes(240)
    assert clock.resolution_due == T0 + minutes(1440)
    assert clock.next_response_due is None
    assert clock.next_due == T0 + minutes(240)


def test_resume_moves_every_running_due_time_by_the_paused_duration() -> None:
    clock = sla.start(T0, NORMAL)
    paused = sla.pause(clock, T0 + minutes(30))
    resumed = sla.resume(paused, T0 + minutes(30) + minutes(90))
    assert resumed.first_response_due == T0 + minutes(240 + 90)
    assert resumed.resolution_due == T0 + minutes(1440 + 90)
    assert resumed.paused_since is None
    assert resumed.paused_seconds == 90 * 60


def test_pausing_twice_keeps_the_first_pause_start() -> None:
    clock = sla.pause(sla.start(T0, NORMAL), T0 + minutes(10))
    assert sla.pause(clock, T0 + minutes(50)).paused_since == T0 + minutes(10)


def test_two_pauses_accumulate() -> None:
    clock = sla.start(T0, NORMAL)
    clock = sla.resume(sla.pause(clock, T0 + minutes(10)), T0 + minutes(20))
    clock = sla.resume(sla.pause(clock, T0 + minutes(60)), T0 + minutes(90))
    assert clock.paused_seconds == 40 * 60
    assert clock.first_response_due == T0 + minutes(240 + 40)


def test_time_left_is_frozen_while_paused() -> None:
    clock = sla.pause(sla.start(T0, NORMAL), T0 + minutes(100))
    assert clock.first_response_due is not None
    assert sla.remaining(clock.first_response_due, clock, T0 + minutes(10_000)) == minutes(140)
    evaluation = sla.evaluate(clock, NORMAL, T0 + minutes(10_000))
    assert not evaluation.breached
    assert evaluation.first_response == sla.State.PAUSED


def test_near_breach_at_eighty_percent_of_the_target() -> None:
    clock = sla.start(T0, NORMAL)
    assert sla.evaluate(clock, NORMAL, T0 + minutes(191)).first_response == sla.State.OK
    assert sla.evaluate(clock, NORMAL, T0 + minutes(192)).first_response == sla.State.NEAR_BREACH


def test_near_breach_with_fifteen_minutes_left_on_short_targets() -> None:
    targets = sla.Targets(first_response=30, next_response=60, resolution=240)
    clock = sla.start(T0, targets)
    # 20% of 30 minutes is 6 minutes; the 15-minute floor applies first.
    assert sla.evaluate(clock, targets, T0 + minutes(14)).first_response == sla.State.OK
    assert sla.evaluate(clock, targets, T0 + minutes(15)).first_response == sla.State.NEAR_BREACH


def test_breached_once_the_due_time_passes() -> None:
    clock = sla.start(T0, NORMAL)
    evaluation = sla.evaluate(clock, NORMAL, T0 + minutes(240))
    assert evaluation.first_response == sla.State.BREACHED
    assert evaluation.breached and not evaluation.near_breach


def test_public_reply_meets_first_and_next_response() -> None:
    clock = sla.public_reply(sla.start(T0, NORMAL))
    assert clock.first_response_due is None and clock.next_response_due is None
    assert clock.resolution_due == T0 + minutes(1440)


def test_customer_message_starts_next_response_only_after_first_response() -> None:
    clock = sla.start(T0, NORMAL)
    assert sla.customer_message(clock, T0 + minutes(5), NORMAL, first_response_met=False) == clock
    replied = sla.public_reply(clock)
    later = sla.customer_message(replied, T0 + minutes(60), NORMAL, first_response_met=True)
    assert later.next_response_due == T0 + minutes(60 + 480)


def test_a_second_customer_message_keeps_the_earlier_next_response_deadline() -> None:
    clock = sla.public_reply(sla.start(T0, NORMAL))
    first = sla.customer_message(clock, T0 + minutes(60), NORMAL, first_response_met=True)
    second = sla.customer_message(first, T0 + minutes(90), NORMAL, first_response_met=True)
    assert second.next_response_due == T0 + minutes(60 + 480)


def test_resolve_stops_every_clock_and_keeps_paused_total() -> None:
    clock = sla.resume(sla.pause(sla.start(T0, NORMAL), T0), T0 + minutes(5))
    done = sla.resolve(clock)
    assert done.next_due is None and done.paused_seconds == 300


def test_retarget_recomputes_from_creation_plus_paused_time() -> None:
    clock = sla.resume(sla.pause(sla.start(T0, NORMAL), T0), T0 + minutes(10))
    urgent = sla.DEFAULT_TARGETS["urgent"]
    retargeted = sla.retarget(clock, created_at=T0, last_customer_message_at=T0, targets=urgent)
    assert retargeted.first_response_due == T0 + minutes(30 + 10)
    assert retargeted.resolution_due == T0 + minutes(240 + 10)


def test_targets_reject_zero_minutes() -> None:
    with pytest.raises(ValueError):
        sla.Targets(first_response=0, next_response=1, resolution=1)


def test_unknown_priority_has_no_targets() -> None:
    with pytest.raises(ValueError):
        sla.targets_for("whenever")


# Through the services, with a frozen clock --------------------------------------------------


@pytest.fixture
def owned(alice, queue, make_ticket) -> Ticket:
    join(alice, queue, on_duty=True)
    with time_machine.travel(T0, tick=False):
        return make_ticket(queue)


def test_pending_customer_pauses_and_reopening_resumes_with_shifted_due_times(alice, owned) -> None:
    with time_machine.travel(T0 + minutes(30), tick=False):
        services.ticket_status_set(
            actor=alice,
            ticket_id=owned.pk,
            status="pending_customer",
            expected_version=owned.version,
        )
    owned.refresh_from_db()
    assert owned.sla_paused_since == T0 + minutes(30)
    with time_machine.travel(T0 + minutes(150), tick=False):
        services.ticket_status_set(
            actor=alice, ticket_id=owned.pk, status="open", expected_version=owned.version
        )
    owned.refresh_from_db()
    assert owned.sla_paused_since is None
    assert owned.sla_paused_seconds == 120 * 60
    assert owned.first_response_due_at == T0 + minutes(240 + 120)
    assert owned.resolution_due_at == T0 + minutes(1440 + 120)
    assert owned.sla_next_due_at == owned.first_response_due_at


def test_customer_reply_resumes_a_ticket_waiting_on_the_customer(alice, sam, owned) -> None:
    with time_machine.travel(T0 + minutes(10), tick=False):
        services.ticket_reply(
            actor=alice,
            ticket_id=owned.pk,
            body="Could you send the order number?",
            expected_version=owned.version,
            status="pending_customer",
        )
    with time_machine.travel(T0 + minutes(70), tick=False):
        services.ticket_customer_message_add(actor=sam, ticket_id=owned.pk, body="It is 1234")
    owned.refresh_from_db()
    assert owned.status == "open"
    assert owned.first_responded_at == T0 + minutes(10)
    assert owned.first_response_due_at is None
    assert owned.next_response_due_at == T0 + minutes(70 + 480)
    assert owned.resolution_due_at == T0 + minutes(1440 + 60)


def test_queue_targets_override_the_defaults(alice, queue, make_ticket) -> None:
    SlaTarget.objects.create(
        queue=queue,
        priority=Priority.HIGH,
        first_response_minutes=20,
        next_response_minutes=40,
        resolution_minutes=120,
    )
    with time_machine.travel(T0, tick=False):
        ticket = make_ticket(queue, priority="high")
    assert ticket.first_response_due_at == T0 + minutes(20)
    assert ticket.resolution_due_at == T0 + minutes(120)


def test_priority_change_recalculates_due_times(alice, owned) -> None:
    with time_machine.travel(T0 + minutes(5), tick=False):
        services.ticket_priority_set(
            actor=alice, ticket_id=owned.pk, priority="urgent", expected_version=owned.version
        )
    owned.refresh_from_db()
    assert owned.first_response_due_at == T0 + minutes(30)
    assert owned.events.filter(kind="sla").exists()
