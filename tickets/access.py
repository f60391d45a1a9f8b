"""Who may see and do what in the inbox. Every view, API view and service asks here.

- Agents (tickets.work_tickets) see tickets in the queues they belong to and tickets
  assigned to them; any other ticket does not exist for them (404).
- Supervisors (tickets.view_all_tickets) see every ticket; with tickets.assign_tickets they
  assign and reassign anyone's tickets; with tickets.merge_tickets they merge.
- Whoever reported a finding (tickets.services.findings) sees that ticket.
- Service principals never use the UI; through the API their token scopes decide
  (escalations:create to escalate, tickets:read to read the tickets they escalated).
"""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext

from backoffice.errors import Forbidden, NotFound
from identity.models import Operator
from tickets.models import QueueMembership, Ticket

WORK = "tickets.work_tickets"
VIEW_ALL = "tickets.view_all_tickets"
ASSIGN = "tickets.assign_tickets"
MERGE = "tickets.merge_tickets"


def can_use_inbox(operator: Operator) -> bool:
    return not operator.is_service_principal and (
        operator.has_perm(WORK) or operator.has_perm(VIEW_ALL)
    )


def sees_all(operator: Operator) -> bool:
    return not operator.is_service_principal and operator.has_perm(VIEW_ALL)


def visible_q(operator: Operator) -> Q:
    """A filter on Ticket for what `operator` may see (one subquery, no extra round trip)."""
    if operator.is_service_principal:
        return Q(escalation__created_by=operator)
    if sees_all(operator):
        return Q()
    reported = Q(escalation__created_by=operator)
    if not operator.has_perm(WORK):
        return reported
    my_queues = QueueMembership.objects.filter(operator=operator).values("queue_id")
    return Q(queue_id__in=my_queues) | Q(assignee=operator) | reported


def is_queue_member(operator: Operator, queue_id: int) -> bool:
    return QueueMembership.objects.filter(operator=operator, queue_id=queue_id).exists()


def can_view(operator: Operator, ticket: Ticket) -> bool:
    if operator.is_service_principal:
        escalation = getattr(ticket, "escalation", None)
        return escalation is not None and escalation.created_by_id == operator.pk
    if sees_all(operator):
        return True
    escalation = getattr(ticket, "escalation", None)
    if escalation is not None and escalation.created_by_id == operator.pk:
        return True  # the person who reported a finding follows it
    if not operator.has_perm(WORK):
        return False
    return ticket.assignee_id == operator.pk or is_queue_member(operator, ticket.queue_id)


def ensure_view(operator: Operator, ticket: Ticket | None) -> Ticket:
    """The ticket, or NotFound when it does not exist or must stay invisible to operator."""
    if ticket is None or not can_view(operator, ticket):
        raise NotFound(gettext("No such ticket."))
    return ticket


def ensure_work(operator: Operator, ticket: Ticket | None) -> Ticket:
    """Visible (else 404) and workable by this operator: a human with the agent or
    supervisor permission."""
    ticket = ensure_view(operator, ticket)
    if operator.is_service_principal or not (operator.has_perm(WORK) or operator.has_perm(ASSIGN)):
        raise Forbidden(gettext("You may read this ticket but not change it."))
    return ticket


def can_assign_to(operator: Operator, ticket: Ticket, assignee: Operator) -> bool:
    """Supervisors assign and reassign anyone. An agent assigns an unowned ticket of a
    queue they work to a member of that queue (themselves included)."""
    if operator.has_perm(ASSIGN):
        return True
    if ticket.assignee_id is not None:
        return False
    return is_queue_member(operator, ticket.queue_id) and is_queue_member(assignee, ticket.queue_id)


def can_reassign(operator: Operator) -> bool:
    return operator.has_perm(ASSIGN)


def can_take(operator: Operator, ticket: Ticket) -> bool:
    """Taking an unowned ticket is open to any agent of its queue; taking one that already
    has an owner is a reassignment, which only supervisors may do."""
    if ticket.assignee_id == operator.pk:
        return False
    if ticket.assignee_id is not None:
        return operator.has_perm(ASSIGN)
    return operator.has_perm(ASSIGN) or (
        operator.has_perm(WORK) and is_queue_member(operator, ticket.queue_id)
    )


# The customer of the tickets the go-live suite opens about failing trials (see
# tickets.services.findings): simulated, so nobody would read a public reply.
SIMULATED_CUSTOMER_EXTERNAL_ID = "evals-sandbox"


def can_reply_publicly(ticket: Ticket) -> bool:
    """Public replies go to a real customer; a simulated one gets internal notes only."""
    return ticket.customer.external_id != SIMULATED_CUSTOMER_EXTERNAL_ID


def can_merge(operator: Operator) -> bool:
    return not operator.is_service_principal and operator.has_perm(MERGE)


def can_edit_note(operator: Operator, author_id: int | None) -> bool:
    """Notes are edited by their author; supervisors may correct anyone's."""
    return author_id == operator.pk or operator.has_perm(ASSIGN)
