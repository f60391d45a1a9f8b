"""Finding 6, its refund part: an operator may never approve (or reject) a refund they
requested or in whose request they hold any other role — here the owner of the customer's
ticket, who has a colleague request the refund and then approves it. Finding 7, its refund
part: a refund request may not link a ticket its requester cannot see."""

from __future__ import annotations

from typing import Any

import pytest

from backoffice.errors import Forbidden, ValidationFailed
from identity.models import Operator, Role
from payments_sandbox.domain import Money
from payments_sandbox.models import Payment, Refund, RefundStatus
from payments_sandbox.services import payment_capture, refund_approve, refund_reject, refund_request
from tickets import services as ticket_services
from tickets.models import Queue, QueueMembership, Ticket

pytestmark = pytest.mark.django_db


@pytest.fixture
def payment() -> Payment:
    return payment_capture(
        actor=None, amount=Money.parse("50.00", "USD"), customer_email="c@example.test"
    )


@pytest.fixture
def billing(alice: Operator) -> Queue:
    queue = Queue.objects.create(name="Billing", slug="billing", capacity_per_operator=3)
    QueueMembership.objects.create(queue=queue, operator=alice)
    return queue


def _ticket(sam: Operator, queue: Queue, assignee: Operator | None = None) -> Ticket:
    ticket = ticket_services.ticket_open_for_customer(
        actor=sam,
        subject="Parcel never arrived",
        customer_message="Where is my parcel?",
        customer_name="Carla Customer",
        customer_email="carla@example.test",
        queue_id=queue.pk,
    )
    if assignee is not None:
        Ticket.objects.filter(pk=ticket.pk).update(assignee=assignee)
    return ticket


def _request(actor: Operator, payment: Payment, **kw: Any) -> Refund:
    return refund_request(
        actor=actor, payment_id=payment.pk, amount="20.00", reason="Damaged item", **kw
    )


def test_the_tickets_owner_cannot_approve_a_refund_a_colleague_requested_on_it(
    make_operator, alice, sam, billing, payment
) -> None:
    carol = make_operator("carol", [Role.AGENT, Role.APPROVER])
    QueueMembership.objects.create(queue=billing, operator=carol)
    ticket = _ticket(sam, billing, assignee=carol)
    refund = _request(alice, payment, ticket_id=ticket.pk)
    for decide in (
        lambda: refund_approve(actor=carol, refund_id=refund.pk),
        lambda: refund_reject(actor=carol, refund_id=refund.pk, reason="no"),
    ):
        with pytest.raises(Forbidden) as caught:
            decide()
        assert caught.value.code == "four_eyes"
    refund.refresh_from_db()
    assert refund.status == RefundStatus.PENDING_APPROVAL


def test_an_approver_with_no_part_in_the_request_still_approves(
    bob, alice, sam, billing, payment
) -> None:
    ticket = _ticket(sam, billing, assignee=alice)
    refund = _request(alice, payment, ticket_id=ticket.pk)
    assert refund_approve(actor=bob, refund_id=refund.pk).decided_by == bob


def test_a_refund_cannot_link_a_ticket_its_requester_cannot_see(alice, sam, payment) -> None:
    elsewhere = Queue.objects.create(name="VIP", slug="vip", capacity_per_operator=3)
    hidden = _ticket(sam, elsewhere)
    with pytest.raises(ValidationFailed) as caught:
        _request(alice, payment, ticket_id=hidden.pk)
    assert "ticket_id" in caught.value.fields
    assert not payment.refunds.exists()
