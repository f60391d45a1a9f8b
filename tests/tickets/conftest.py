from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from identity.models import Operator, Role
from tickets import services
from tickets.models import OperatorAvailability, Queue, QueueMembership, Ticket


@pytest.fixture
def queue(db: None) -> Queue:
    return Queue.objects.create(name="Billing", slug="billing", capacity_per_operator=3)


@pytest.fixture
def other_queue(db: None) -> Queue:
    return Queue.objects.create(name="Returns", slug="returns", capacity_per_operator=3)


def join(
    operator: Operator, queue: Queue, *, on_duty: bool = False, cap: int | None = None
) -> None:
    QueueMembership.objects.get_or_create(queue=queue, operator=operator)
    OperatorAvailability.objects.update_or_create(
        operator=operator, defaults={"on_duty": on_duty, "capacity_override": cap}
    )


@pytest.fixture
def make_ticket(sam: Operator) -> Callable[..., Ticket]:
    """A ticket created by a supervisor (so any queue is allowed)."""

    def make(queue: Queue, **kwargs: Any) -> Ticket:
        values: dict[str, Any] = {
            "subject": "Parcel never arrived",
            "customer_message": "Where is my parcel?",
            "customer_name": "Carla Customer",
            "customer_email": "carla@example.test",
            "queue_id": queue.pk,
        }
        values.update(kwargs)
        return services.ticket_open_for_customer(actor=sam, **values)

    return make


@pytest.fixture
def agent_in_queue(alice: Operator, queue: Queue) -> Operator:
    join(alice, queue, on_duty=True)
    return alice


@pytest.fixture
def make_agent(make_operator: Callable[..., Operator]) -> Callable[..., Operator]:
    def make(name: str, queue: Queue, *, on_duty: bool = True, cap: int | None = None) -> Operator:
        operator = make_operator(name, [Role.AGENT])
        join(operator, queue, on_duty=on_duty, cap=cap)
        return operator

    return make
