"""An operator opens a ticket on a customer's behalf (a phone call, an email forwarded from a
personal mailbox, a chat outside the widget): the new-ticket page's one write, and the only
way an operator creates a ticket. It starts from the customer's words, an internal note or
both, for a customer on file or a new one, and is routed or kept by the operator.

The other kinds of new ticket have their own services: the AI agent's escalation
(`escalations.ticket_open_for_escalation`) and a go-live finding
(`findings.ticket_open_for_finding`); all three insert through `_insert.insert_ticket`.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Forbidden, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from tickets import access, routing
from tickets.models import (
    Channel,
    Customer,
    Message,
    MessageKind,
    Priority,
    Queue,
    QueueMembership,
    Status,
    Ticket,
    TicketEventKind,
)
from tickets.services import _common as common
from tickets.services import tags as tagging
from tickets.services._insert import NewTicket, insert_ticket
from tickets.services.conversation import MAX_BODY, customer_upsert

# Channels an operator logs a ticket from; web-form and AI-agent tickets arrive by the API.
OPERATOR_CHANNELS = (Channel.PHONE, Channel.EMAIL, Channel.CHAT)


def _text(value: str, field: str, errors: dict[str, list[str]]) -> str:
    value = (value or "").strip()
    if len(value) > MAX_BODY:
        errors[field] = [f"At most {MAX_BODY} characters."]
    return value


def _check_input(
    *,
    customer_message: str,
    internal_note: str,
    channel: str,
    customer_id: int | None,
    customer_given: bool,
) -> tuple[str, str]:
    """The customer's words and the note, stripped; every field's error at once."""
    errors: dict[str, list[str]] = {}
    customer_message = _text(customer_message, "customer_message", errors)
    internal_note = _text(internal_note, "internal_note", errors)
    if not customer_message and not internal_note:
        errors["customer_message"] = ["Write the customer's words, an internal note, or both."]
    if channel not in OPERATOR_CHANNELS:
        errors["channel"] = [f"Not one of {', '.join(OPERATOR_CHANNELS)}."]
    if customer_id is None and not customer_given:
        errors["customer_name"] = ["Pick a customer or give a name, an email or an external id."]
    if errors:
        raise ValidationFailed(gettext("The ticket is not valid."), fields=errors)
    return customer_message, internal_note


def _customer(*, customer_id: int | None, name: str, email: str, external_id: str) -> Customer:
    """The customer picked (customer_id), or the one found or created from the details."""
    if customer_id is None:
        return customer_upsert(name=name, email=email, external_id=external_id)
    customer = Customer.objects.filter(pk=customer_id).first()
    if customer is None:
        raise ValidationFailed(
            gettext("Unknown customer."),
            fields={"customer_id": [gettext("No such customer.")]},
        )
    return customer


def _first_messages(
    *,
    ticket: Ticket,
    actor: Operator,
    customer: Customer,
    customer_message: str,
    internal_note: str,
    now: datetime,
) -> list[Operator]:
    """The customer's words and the operator's note, as the ticket's first messages; the
    operators the note mentions (they are notified)."""
    if customer_message:
        Message.objects.create(
            ticket=ticket,
            kind=MessageKind.CUSTOMER,
            author_label=customer.name,
            body=customer_message,
            created_at=now,
        )
    else:
        # Only the operator has written: no customer message starts a response clock.
        Ticket.objects.filter(pk=ticket.pk).update(last_customer_message_at=None)
        ticket.last_customer_message_at = None
    if not internal_note:
        return []
    note = Message.objects.create(
        ticket=ticket,
        kind=MessageKind.INTERNAL_NOTE,
        author=actor,
        body=internal_note,
        created_at=now,
    )
    return common.record_mentions(note, ticket, actor, now)


def _keep(*, ticket: Ticket, actor: Operator, queue: Queue, now: datetime) -> None:
    """The operator who opened the ticket keeps it, instead of routing."""
    # The actor's load counter changes with the UPDATE below (trigger): lock their queues
    # first, the order routing takes its locks in (see tickets.routing).
    routing.lock_queues_of([actor.pk])
    ticket.assignee = actor
    ticket.assigned_at = now
    ticket.unrouted = False
    common.save_ticket(ticket, ["assignee", "assigned_at", "unrouted"], now)
    QueueMembership.objects.filter(queue=queue, operator=actor).update(last_assigned_at=now)
    common.event(
        ticket,
        kind=TicketEventKind.ASSIGNEE,
        actor=actor,
        phrase="kept_by_opener",
        params={"name": str(actor)},
        now=now,
        before={"assignee": None},
        after={"assignee": actor.pk, "assignee_name": str(actor)},
    )


def _queue(actor: Operator, queue_id: int, *, assign_to_self: bool) -> Queue:
    """The queue the ticket opens in; keeping the ticket is for the queue's members (and
    those who may reassign)."""
    queue, member = common.queue_for_new_ticket(actor, queue_id)
    if assign_to_self and not (member or access.can_reassign(actor)):
        raise ValidationFailed(
            gettext("You do not work this queue."),
            fields={"assign_to_self": [gettext("Only members of the queue may keep its tickets.")]},
        )
    return queue


def _audit_creation(
    *,
    actor: Operator,
    new: NewTicket,
    channel: str,
    customer: Customer,
    customer_message: str,
    internal_note: str,
    mentioned: list[Operator],
    assign_to_self: bool,
) -> None:
    """The one `ticket.create` event: the ticket as opened, and what came with it."""
    audit_record(
        actor=actor,
        action="ticket.create",
        target=new.ticket,
        after={
            **common.snapshot_ticket(new.ticket),
            "channel": channel,
            "customer": customer.pk,
            "opened_by_operator": True,
            "customer_message": bool(customer_message),
            "internal_note": bool(internal_note),
            "mentions": [op.pk for op in mentioned],
            "assign_to_self": assign_to_self,
            "routed": [r.ticket_id for r in new.routed],
        },
    )


def ticket_open_for_customer(
    *,
    actor: Operator,
    subject: str,
    queue_id: int,
    priority: str = Priority.NORMAL,
    channel: str = Channel.PHONE,
    tags: list[str] | None = None,
    customer_id: int | None = None,
    customer_name: str = "",
    customer_email: str = "",
    customer_external_id: str = "",
    customer_message: str = "",
    internal_note: str = "",
    assign_to_self: bool = False,
) -> Ticket:
    """Create the ticket with the customer's words and/or an internal note (at least one),
    for an existing customer (customer_id) or one found or created from name, email and
    external id. Then the actor keeps it (assign_to_self; agents only in queues they work)
    or it is routed like any other new ticket. One `ticket.create` audit event."""
    if not access.can_use_inbox(actor):
        raise Forbidden(gettext("You may not create tickets."))
    customer_message, internal_note = _check_input(
        customer_message=customer_message,
        internal_note=internal_note,
        channel=channel,
        customer_id=customer_id,
        customer_given=bool(customer_name or customer_email or customer_external_id),
    )
    normalised_tags = tagging.normalise_tags(tags or [])
    with transaction.atomic():
        queue = _queue(actor, queue_id, assign_to_self=assign_to_self)
        customer = _customer(
            customer_id=customer_id,
            name=customer_name,
            email=customer_email,
            external_id=customer_external_id,
        )
        now = timezone.now()
        new = insert_ticket(
            actor=actor,
            subject=subject,
            customer=customer,
            queue=queue,
            priority=priority,
            channel=channel,
            status=Status.NEW,
            tags=normalised_tags,
            now=now,
            route=not assign_to_self,  # the actor keeps it (below), else it is routed
        )
        ticket = new.ticket
        mentioned = _first_messages(
            ticket=ticket,
            actor=actor,
            customer=customer,
            customer_message=customer_message,
            internal_note=internal_note,
            now=now,
        )
        if assign_to_self:
            _keep(ticket=ticket, actor=actor, queue=queue, now=now)
        _audit_creation(
            actor=actor,
            new=new,
            channel=channel,
            customer=customer,
            customer_message=customer_message,
            internal_note=internal_note,
            mentioned=mentioned,
            assign_to_self=assign_to_self,
        )
    return ticket


__all__ = ["OPERATOR_CHANNELS", "ticket_open_for_customer"]
