"""Who works now: operators going on and off duty, the routing sweep behind event-driven
routing, and the repair path behind the operators' load counters."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext

from backoffice.errors import Forbidden, NotFound, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator
from tickets import access, routing
from tickets.models import (
    ACTIVE_STATUSES,
    OperatorAvailability,
    OperatorLoad,
    Queue,
    QueueMembership,
    Ticket,
)


def operator_duty_set(
    *,
    actor: Operator,
    on_duty: bool,
    operator_id: int | None = None,
    capacity_override: int | None = None,
    clear_capacity_override: bool = False,
) -> list[routing.Routed]:
    """Go on or off duty (supervisors may do it for others). Going on duty routes the
    waiting tickets of the operator's queues at once. Going off duty keeps the tickets one
    already owns; a supervisor reassigns them if needed."""
    target_id = operator_id or actor.pk
    if target_id != actor.pk and not access.can_reassign(actor):
        raise Forbidden(gettext("Only a supervisor may change another operator's duty."))
    if capacity_override is not None and capacity_override < 0:
        raise ValidationFailed(
            gettext("Capacity cannot be negative."),
            fields={"capacity_override": [gettext("Must be ≥ 0.")]},
        )
    with transaction.atomic():
        operator = Operator.objects.filter(pk=target_id, is_active=True).first()
        if operator is None or operator.is_service_principal:
            raise NotFound(gettext("No such operator."))
        availability, _ = OperatorAvailability.objects.select_for_update().get_or_create(
            operator=operator
        )
        before = {
            "on_duty": availability.on_duty,
            "capacity_override": availability.capacity_override,
        }
        availability.on_duty = on_duty
        if clear_capacity_override:
            availability.capacity_override = None
        elif capacity_override is not None:
            availability.capacity_override = capacity_override
        availability.save()
        routed: list[routing.Routed] = []
        if on_duty:
            routed = routing.route_queues(routing.queues_of(operator.pk))
        audit_record(
            actor=actor,
            action="operator.duty",
            target=operator,
            before=before,
            after={
                "on_duty": on_duty,
                "capacity_override": availability.capacity_override,
                "routed": [r.ticket_id for r in routed],
            },
        )
    return routed


def tickets_route_unrouted() -> list[routing.Routed]:
    """The beat sweep: route every queue that has waiting tickets (a safety net behind the
    event-driven routing). Audited as the system, only when it routed something."""
    with transaction.atomic():
        queue_ids = list(
            Ticket.objects.filter(unrouted=True, assignee__isnull=True, status__in=ACTIVE_STATUSES)
            .values_list("queue_id", flat=True)
            .distinct()
        )
        routed = routing.route_queues(queue_ids)
        if routed:
            audit_record(
                actor=None,
                action="ticket.route_sweep",
                target_type="tickets.queue",
                target_id=",".join(str(q) for q in sorted(set(queue_ids)))[:80],
                after={"routed": {str(r.ticket_id): r.operator_id for r in routed}},
            )
    return routed


def operator_loads_recount(*, actor: Operator | None = None) -> dict[int, int]:
    """The repair path behind the load counters: recount every operator's active tickets
    from the tickets (tickets.routing.load_recount), then route the queues of anyone whose
    counter was too high (they had capacity routing could not see). Returns {operator id:
    corrected count}; audited only when something was corrected, which the triggers of
    migration 0006 should make never happen."""
    with transaction.atomic():
        # Lock order (see tickets.routing): queues before load rows.
        routing.lock_queues(Queue.objects.values_list("pk", flat=True))
        before = dict(OperatorLoad.objects.values_list("operator_id", "active_tickets"))
        wrong = routing.load_recount()
        freed = [pk for pk, count in wrong.items() if count < before.get(pk, 0)]
        routed = routing.route_queues(
            QueueMembership.objects.filter(operator_id__in=freed).values_list("queue_id", flat=True)
        )
        if wrong:
            audit_record(
                actor=actor,
                action="ticket.load_recount",
                target_type="tickets.operatorload",
                target_id="all",
                before={str(pk): before.get(pk, 0) for pk in wrong},
                after={
                    "corrected": {str(pk): count for pk, count in wrong.items()},
                    "routed": [r.ticket_id for r in routed],
                },
            )
    return wrong


__all__ = ["operator_duty_set", "operator_loads_recount", "tickets_route_unrouted"]
