"""SLA arithmetic: pure functions on datetimes, no database, no clock of their own.

Three clocks run on a ticket:
- first response: from creation until the first public reply;
- next response: from each customer message (after the first response) until the next
  public reply;
- resolution: from creation until the ticket is resolved.

While the ticket waits on the customer (pending customer) or on a third party (on hold)
every clock is paused; on resume each running clock's due time moves later by the paused
duration, so a paused minute never counts against the team.

A running clock is "near breach" once 80% of its target has elapsed or at most 15 minutes
remain, and "breached" once its due time has passed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from collections.abc import Mapping

NEAR_BREACH_FRACTION = 0.8
NEAR_BREACH_MINIMUM = dt.timedelta(minutes=15)


@dataclasses.dataclass(frozen=True)
class Targets:
    """Minutes allowed for each clock."""

    first_response: int
    next_response: int
    resolution: int

    def __post_init__(self) -> None:
        if min(self.first_response, self.next_response, self.resolution) <= 0:
            raise ValueError("SLA targets must be positive numbers of minutes.")


DEFAULT_TARGETS: dict[str, Targets] = {
    "urgent": Targets(first_response=30, next_response=60, resolution=4 * 60),
    "high": Targets(first_response=60, next_response=2 * 60, resolution=8 * 60),
    "normal": Targets(first_response=4 * 60, next_response=8 * 60, resolution=24 * 60),
    "low": Targets(first_response=8 * 60, next_response=24 * 60, resolution=72 * 60),
}


def targets_for(priority: str, overrides: Mapping[str, Targets] | None = None) -> Targets:
    """The queue's targets for `priority` (its overrides first, then the defaults)."""
    if overrides and priority in overrides:
        return overrides[priority]
    try:
        return DEFAULT_TARGETS[priority]
    except KeyError as exc:
        raise ValueError(f"Unknown priority {priority!r}.") from exc


class State(enum.StrEnum):
    OK = "ok"
    NEAR_BREACH = "near_breach"
    BREACHED = "breached"
    PAUSED = "paused"
    MET = "met"
    NONE = "none"


@dataclasses.dataclass(frozen=True)
class Clock:
    """The SLA fields of a ticket. A due time of None means that clock is not running."""

    first_response_due: dt.datetime | None = None
    next_response_due: dt.datetime | None = None
    resolution_due: dt.datetime | None = None
    paused_since: dt.datetime | None = None
    paused_seconds: int = 0

    @property
    def running_dues(self) -> list[dt.datetime]:
        return [
            due
            for due in (self.first_response_due, self.next_response_due, self.resolution_due)
            if due is not None
        ]

    @property
    def next_due(self) -> dt.datetime | None:
        """The earliest running deadline (while paused it is frozen, but still the next)."""
        dues = self.running_dues
        return min(dues) if dues else None


def _minutes(n: int) -> dt.timedelta:
    return dt.timedelta(minutes=n)


def start(created_at: dt.datetime, targets: Targets) -> Clock:
    """A new ticket: first-response and resolution clocks start at creation."""
    return Clock(
        first_response_due=created_at + _minutes(targets.first_response),
        resolution_due=created_at + _minutes(targets.resolution),
    )


def pause(clock: Clock, now: dt.datetime) -> Clock:
    """Stop every clock (idempotent: pausing a paused clock keeps the original start)."""
    if clock.paused_since is not None:
        return clock
    return dataclasses.replace(clock, paused_since=now)


def resume(clock: Clock, now: dt.datetime) -> Clock:
    """Restart the clocks, moving each running due time later by the paused duration."""
    if clock.paused_since is None:
        return clock
    paused = max(now - clock.paused_since, dt.timedelta(0))

    def shift(due: dt.datetime | None) -> dt.datetime | None:
        return None if due is None else due + paused

    return Clock(
        first_response_due=shift(clock.first_response_due),
        next_response_due=shift(clock.next_response_due),
        resolution_due=shift(clock.resolution_due),
        paused_since=None,
        paused_seconds=clock.paused_seconds + int(paused.total_seconds()),
    )


def public_reply(clock: Clock) -> Clock:
    """A public reply meets the first-response clock and any next-response clock."""
    return dataclasses.replace(clock, first_response_due=None, next_response_due=None)


def customer_message(
    clock: Clock, now: dt.datetime, targets: Targets, *, first_response_met: bool
) -> Clock:
    """A customer wrote: once the first response was given, a next-response clock starts
    (an earlier one still running keeps its earlier deadline). Before the first response
    the first-response clock already covers it."""
    if not first_response_met:
        return clock
    due = now + _minutes(targets.next_response)
    if clock.next_response_due is not None and clock.next_response_due <= due:
        return clock
    return dataclasses.replace(clock, next_response_due=due)


def resolve(clock: Clock) -> Clock:
    """Resolution stops every clock."""
    return Clock(paused_since=None, paused_seconds=clock.paused_seconds)


def reopen(clock: Clock, now: dt.datetime, targets: Targets) -> Clock:
    """A resolved ticket reopened: the team owes a (next) response and a resolution again."""
    return dataclasses.replace(
        clock,
        next_response_due=now + _minutes(targets.next_response),
        resolution_due=now + _minutes(targets.resolution),
        paused_since=None,
    )


def retarget(
    clock: Clock,
    *,
    created_at: dt.datetime,
    last_customer_message_at: dt.datetime | None,
    targets: Targets,
) -> Clock:
    """New targets (a priority change): recompute each running clock from its start plus
    the time already paused, keeping the pause in progress (if any) as it is."""
    paused = dt.timedelta(seconds=clock.paused_seconds)
    return dataclasses.replace(
        clock,
        first_response_due=(
            None
            if clock.first_response_due is None
            else created_at + _minutes(targets.first_response) + paused
        ),
        next_response_due=(
            None
            if clock.next_response_due is None or last_customer_message_at is None
            else last_customer_message_at + _minutes(targets.next_response)
        ),
        resolution_due=(
            None
            if clock.resolution_due is None
            else created_at + _minutes(targets.resolution) + paused
        ),
    )


def remaining(due: dt.datetime, clock: Clock, now: dt.datetime) -> dt.timedelta:
    """Time left on a deadline; frozen at the moment the pause began while paused."""
    effective_now = clock.paused_since if clock.paused_since is not None else now
    return due - effective_now


def state_of(due: dt.datetime | None, target_minutes: int, clock: Clock, now: dt.datetime) -> State:
    """One clock's state: breached past the due time, near breach once 80% of the target
    has elapsed or at most 15 minutes remain."""
    if due is None:
        return State.NONE
    left = remaining(due, clock, now)
    if left <= dt.timedelta(0):
        return State.BREACHED
    threshold = max(_minutes(target_minutes) * (1 - NEAR_BREACH_FRACTION), NEAR_BREACH_MINIMUM)
    if left <= threshold:
        return State.NEAR_BREACH
    return State.PAUSED if clock.paused_since is not None else State.OK


@dataclasses.dataclass(frozen=True)
class Evaluation:
    first_response: State
    next_response: State
    resolution: State

    @property
    def breached(self) -> bool:
        return State.BREACHED in (self.first_response, self.next_response, self.resolution)

    @property
    def near_breach(self) -> bool:
        return not self.breached and State.NEAR_BREACH in (
            self.first_response,
            self.next_response,
            self.resolution,
        )


def evaluate(clock: Clock, targets: Targets, now: dt.datetime) -> Evaluation:
    return Evaluation(
        first_response=state_of(clock.first_response_due, targets.first_response, clock, now),
        next_response=state_of(clock.next_response_due, targets.next_response, clock, now),
        resolution=state_of(clock.resolution_due, targets.resolution, clock, now),
    )
