"""Every write to the inbox, one module per entity: tickets opened by an operator (`intake`),
by the AI agent (`escalations`) and for a go-live finding (`findings`), all through one
insert (`_insert`); the conversation (`conversation`), the ticket's state (`workflow`), merges
(`merges`) and the same change to many tickets (`bulk`);
queues, duty and routing, the SLA job, notifications and presence.

Each service runs in one transaction, checks access, writes TicketEvents for the timeline and
ends with exactly one audit event (ticket_bulk_update delegates to the single-ticket services,
so it writes one audit event per ticket changed; presence_touch is a heartbeat and writes
none)."""

from tickets.services.bulk import BulkResult, ticket_bulk_update
from tickets.services.conversation import (
    customer_upsert,
    ticket_customer_message_add,
    ticket_note_add,
    ticket_note_edit,
    ticket_reply,
)
from tickets.services.duty import operator_duty_set, operator_loads_recount, tickets_route_unrouted
from tickets.services.escalations import (
    CATEGORY_PRIORITY,
    EscalationResult,
    ticket_open_for_escalation,
)
from tickets.services.findings import ticket_open_for_finding
from tickets.services.intake import ticket_open_for_customer
from tickets.services.merges import ticket_merge
from tickets.services.notifications import notifications_mark_read
from tickets.services.presence import presence_touch
from tickets.services.queues import queue_create, queue_update
from tickets.services.sla_job import sla_evaluate
from tickets.services.workflow import (
    ticket_assign,
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
    "notifications_mark_read",
    "operator_duty_set",
    "operator_loads_recount",
    "presence_touch",
    "queue_create",
    "queue_update",
    "sla_evaluate",
    "ticket_assign",
    "ticket_bulk_update",
    "ticket_customer_message_add",
    "ticket_merge",
    "ticket_note_add",
    "ticket_note_edit",
    "ticket_open_for_customer",
    "ticket_open_for_escalation",
    "ticket_open_for_finding",
    "ticket_priority_set",
    "ticket_reassign",
    "ticket_reply",
    "ticket_status_set",
    "ticket_tags_set",
    "ticket_take",
    "tickets_route_unrouted",
]
