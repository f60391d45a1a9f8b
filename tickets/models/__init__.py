"""The inbox's data: queues and who works them, customers, tickets and their conversation,
the timeline, notifications, presence and the AI agent's escalations."""

from tickets.models.conversation import Mention, Message, MessageKind, NoteRevision
from tickets.models.escalations import Escalation, EscalationCategory
from tickets.models.events import (
    Notification,
    NotificationKind,
    TicketEvent,
    TicketEventKind,
    TicketPresence,
)
from tickets.models.queues import (
    OperatorAvailability,
    OperatorLoad,
    Queue,
    QueueMembership,
    SlaTarget,
)
from tickets.models.tickets import (
    ACTIVE_STATUSES,
    PAUSED_STATUSES,
    Channel,
    Customer,
    Priority,
    Status,
    Tag,
    Ticket,
)

__all__ = [
    "ACTIVE_STATUSES",
    "PAUSED_STATUSES",
    "Channel",
    "Customer",
    "Escalation",
    "EscalationCategory",
    "Mention",
    "Message",
    "MessageKind",
    "NoteRevision",
    "Notification",
    "NotificationKind",
    "OperatorAvailability",
    "OperatorLoad",
    "Priority",
    "Queue",
    "QueueMembership",
    "SlaTarget",
    "Status",
    "Tag",
    "Ticket",
    "TicketEvent",
    "TicketEventKind",
    "TicketPresence",
]
