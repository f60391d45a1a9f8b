"""Creating tickets and writing in them: customer messages, public replies, notes."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Value
from django.db.models.functions import Upper
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Forbidden, NotFound, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from tickets import access, routing, sla
from tickets.models import (
    ACTIVE_STATUSES,
    Customer,
    Message,
    MessageKind,
    NoteRevision,
    Status,
    Ticket,
    TicketEventKind,
)
from tickets.services import _common as common

MAX_BODY = 50_000


def _body(body: str, field: str = "body") -> str:
    body = (body or "").strip()
    if not body:
        raise ValidationFailed(
            gettext("Write something first."), fields={field: [gettext("This field is required.")]}
        )
    if len(body) > MAX_BODY:
        raise ValidationFailed(
            gettext("The message is too long."),
            fields={field: [gettext("At most %(MAX_BODY)s characters.") % {"MAX_BODY": MAX_BODY}]},
        )
    return body


def customer_upsert(*, name: str, email: str = "", external_id: str = "") -> Customer:
    """The customer with this external id (else this email), created or refreshed. Runs
    inside the calling service's transaction."""
    name = name.strip()[:200] or email or external_id or "Unknown customer"
    customer = None
    if external_id:
        customer = Customer.objects.filter(external_id=external_id).first()
    if customer is None and email:
        # UPPER(email) = UPPER(%s) on every backend (iexact is a LIKE on SQLite), so the
        # customer_email_upper index answers it instead of a scan of every customer.
        customer = (
            Customer.objects.alias(email_upper=Upper("email"))
            .filter(email_upper=Upper(Value(email)))
            .order_by("id")
            .first()
        )
    if customer is None:
        return Customer.objects.create(name=name, email=email, external_id=external_id)
    changed = []
    if external_id and not customer.external_id:
        customer.external_id = external_id
        changed.append("external_id")
    if email and not customer.email:
        customer.email = email
        changed.append("email")
    if changed:
        customer.save(update_fields=changed)
    return customer


def ticket_customer_message_add(
    *, actor: Operator, ticket_id: int, body: str, author_label: str = ""
) -> Message:
    """A customer wrote again (relayed by the AI agent's runtime or an operator). Starts
    the next-response clock, resumes a ticket that was waiting on the customer, and
    reopens a resolved one. Does not require a version: the customer cannot see ours."""
    body = _body(body)
    with transaction.atomic():
        ticket = common.lock_ticket(ticket_id)
        if actor.is_service_principal:
            access.ensure_view(actor, ticket)
        else:
            access.ensure_work(actor, ticket)
        if ticket.status == Status.CLOSED or ticket.merged_into_id:
            raise ValidationFailed(gettext("This ticket is closed; open a new ticket instead."))
        now = timezone.now()
        old_status = ticket.status
        new_status = (
            Status.OPEN if old_status in (Status.PENDING_CUSTOMER, Status.RESOLVED) else old_status
        )
        clock = common.clock_for_status(ticket, old_status, new_status, now)
        if old_status == Status.RESOLVED:
            routing.lock_queues_of([ticket.assignee_id])  # reopening takes a slot again
        clock = sla.customer_message(
            clock,
            now,
            common.targets_for(ticket),
            first_response_met=ticket.first_responded_at is not None,
        )
        ticket.status = new_status
        ticket.last_customer_message_at = now
        if new_status != Status.RESOLVED:
            ticket.resolved_at = None
        fields = [
            "status",
            "last_customer_message_at",
            "resolved_at",
            *common.apply_clock(ticket, clock, now),
        ]
        common.save_ticket(ticket, fields, now)
        message = Message.objects.create(
            ticket=ticket,
            kind=MessageKind.CUSTOMER,
            author_label=author_label or ticket.customer.name,
            body=body,
            created_at=now,
        )
        common.event(
            ticket,
            kind=TicketEventKind.CUSTOMER_MESSAGE,
            actor=actor,
            phrase="customer_wrote",
            now=now,
        )
        if new_status != old_status:
            common.status_event(ticket, actor=actor, old=old_status, new=new_status, now=now)
        audit_record(
            actor=actor,
            action="ticket.customer_message",
            target=ticket,
            after={"message": message.pk, "status": new_status, "version": ticket.version},
        )
    return message


def _check_repliable(ticket: Ticket) -> None:
    """A public reply needs an open ticket and a customer who would read it."""
    if ticket.merged_into_id or ticket.status == Status.CLOSED:
        raise ValidationFailed(
            gettext("This ticket is closed; reply on the ticket it was merged into.")
        )
    if not access.can_reply_publicly(ticket):
        raise ValidationFailed(
            gettext(
                "This customer is simulated by the go-live suite, so nobody would read a "
                "public reply. Add an internal note instead."
            )
        )


def _status_after_reply(old_status: str, requested: str) -> str:
    """The status a reply leaves: the one asked for, else a new or escalated ticket is open
    and any other keeps its status. A reply never makes a ticket new again."""
    new_status = requested or (
        Status.OPEN if old_status in (Status.NEW, Status.ESCALATED) else old_status
    )
    if new_status not in Status.values or (new_status == Status.NEW and old_status != Status.NEW):
        raise ValidationFailed(
            gettext("Not a status to reply with."), fields={"status": [gettext("Not allowed.")]}
        )
    return new_status


def ticket_reply(
    *, actor: Operator, ticket_id: int, body: str, expected_version: int | None, status: str = ""
) -> Message:
    """A public reply to the customer. Meets the first-response clock (and any
    next-response clock); optionally sets the status in the same step (e.g. reply and set
    pending customer), as help desks do."""
    body = _body(body)
    with transaction.atomic():
        ticket = common.lock_for_work(actor, ticket_id, expected_version)
        _check_repliable(ticket)
        now = timezone.now()
        old_status = ticket.status
        new_status = _status_after_reply(old_status, status)
        clock = sla.public_reply(common.clock_for_status(ticket, old_status, new_status, now))
        if (old_status in ACTIVE_STATUSES) != (new_status in ACTIVE_STATUSES):
            routing.lock_queues_of([ticket.assignee_id])  # the owner's load changes

        if ticket.first_responded_at is None:
            ticket.first_responded_at = now
        ticket.status = new_status
        if new_status == Status.RESOLVED:
            ticket.resolved_at = now
        fields = [
            "status",
            "first_responded_at",
            "resolved_at",
            *common.apply_clock(ticket, clock, now),
        ]
        common.save_ticket(ticket, fields, now)
        message = Message.objects.create(
            ticket=ticket, kind=MessageKind.PUBLIC_REPLY, author=actor, body=body, created_at=now
        )
        common.event(
            ticket,
            kind=TicketEventKind.REPLY,
            actor=actor,
            phrase="replied",
            now=now,
        )
        routed: list[routing.Routed] = []
        if new_status != old_status:
            common.status_event(ticket, actor=actor, old=old_status, new=new_status, now=now)
            if new_status in (Status.RESOLVED, Status.CLOSED) and ticket.assignee_id:
                routed = routing.route_queues(routing.queues_of(ticket.assignee_id), now=now)
        audit_record(
            actor=actor,
            action="ticket.reply",
            target=ticket,
            before={"status": old_status, "version": ticket.version - 1},
            after={
                "message": message.pk,
                "status": new_status,
                "version": ticket.version,
                "routed": [r.ticket_id for r in routed],
            },
        )
    return message


def ticket_note_add(
    *, actor: Operator, ticket_id: int, body: str, expected_version: int | None
) -> Message:
    """An internal note (never shown to the customer). @username notifies that operator if
    they can see the ticket."""
    body = _body(body)
    with transaction.atomic():
        ticket = common.lock_for_work(actor, ticket_id, expected_version)
        now = timezone.now()
        common.save_ticket(ticket, [], now)
        message = Message.objects.create(
            ticket=ticket, kind=MessageKind.INTERNAL_NOTE, author=actor, body=body, created_at=now
        )
        mentioned = common.record_mentions(message, ticket, actor, now)
        common.event(
            ticket,
            kind=TicketEventKind.NOTE,
            actor=actor,
            phrase="note_added",
            now=now,
        )
        audit_record(
            actor=actor,
            action="ticket.note_add",
            target=ticket,
            after={
                "message": message.pk,
                "mentions": [op.pk for op in mentioned],
                "version": ticket.version,
            },
        )
    return message


def ticket_note_edit(
    *, actor: Operator, ticket_id: int, note_id: int, body: str, expected_version: int | None
) -> Message:
    """Change a note of ticket `ticket_id`, keeping the previous text as a revision; a note of
    another ticket is no such note. Newly @mentioned operators are notified; ones already
    mentioned are not notified again."""
    body = _body(body)
    with transaction.atomic():
        note = Message.objects.filter(
            pk=note_id, ticket_id=ticket_id, kind=MessageKind.INTERNAL_NOTE
        ).first()
        if note is None:
            raise NotFound(gettext("No such note."))
        ticket = common.lock_for_work(actor, note.ticket_id, expected_version)
        note = Message.objects.select_for_update().get(pk=note_id)
        if not access.can_edit_note(actor, note.author_id):
            raise Forbidden(gettext("Only the note's author or a supervisor may edit it."))
        if note.body == body:
            return note
        now = timezone.now()
        previous = note.body
        NoteRevision.objects.create(message=note, body=previous, edited_by=actor, edited_at=now)
        note.body = body
        note.edited_at = now
        note.save(update_fields=["body", "edited_at"])
        common.save_ticket(ticket, [], now)
        mentioned = common.record_mentions(note, ticket, actor, now, previous=previous)
        common.event(
            ticket,
            kind=TicketEventKind.NOTE_EDIT,
            actor=actor,
            phrase="note_edited",
            now=now,
            after={"message": note.pk},
        )
        audit_record(
            actor=actor,
            action="ticket.note_edit",
            target=note,
            before={"body": previous},
            after={"body": body, "mentions": [op.pk for op in mentioned], "ticket": ticket.pk},
        )
    return note
