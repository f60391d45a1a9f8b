"""Every write to the inbox. Each service runs in one transaction, checks access, writes
TicketEvents for the timeline and ends with exactly one audit event (ticket_bulk_update
delegates to the single-ticket services, so it writes one audit event per ticket changed;
presence_touch is a heartbeat and writes none)."""

from tickets.services.conversation import (
    customer_upsert,
    ticket_create,
    ticket_customer_message_add,
    ticket_note_add,
    ticket_note_edit,
    ticket_reply,
)
from tickets.services.findings import finding_ticket_open
from tickets.services.operations import (
    CATEGORY_PRIORITY,
    EscalationResult,
    escalation_create,
    notifications_mark_read,
    operator_duty_set,
    presence_touch,
    queue_create,
    sla_evaluate,
    tickets_route_unrouted,
)
from tickets.services.queues import queue_update as queue_update
from tickets.services.workflow import (
    BulkResult,
    ticket_assign,
    ticket_bulk_update,
    ticket_merge,
    ticket_priority_set,
    ticket_reassign,
    ticket_status_set,
    ticket_tags_set,
    ticket_take,
)

__all__ = [
    "CATEGORY_PRIORITY",
    "BulkResult",
    "EscalationResult",
    "customer_upsert",
    "escalation_create",
    "finding_ticket_open",
    "notifications_mark_read",
    "operator_duty_set",
    "presence_touch",
    "queue_create",
    "sla_evaluate",
    "ticket_assign",
    "ticket_bulk_update",
    "ticket_create",
    "ticket_customer_message_add",
    "ticket_merge",
    "ticket_note_add",
    "ticket_note_edit",
    "ticket_priority_set",
    "ticket_reassign",
    "ticket_reply",
    "ticket_status_set",
    "ticket_tags_set",
    "ticket_take",
    "tickets_route_unrouted",
]
