"""One change to many tickets at once, each through its single-ticket service."""

from __future__ import annotations

import dataclasses

from django.db import transaction
from django.utils.translation import gettext

from backoffice.errors import DomainError, ValidationFailed
from identity.models import Operator
from tickets.models import Tag
from tickets.services.workflow import (
    ticket_assign,
    ticket_priority_set,
    ticket_status_set,
    ticket_tags_set,
)

BULK_ACTIONS = ("assign", "status", "priority", "tag")


@dataclasses.dataclass
class BulkResult:
    updated: list[int] = dataclasses.field(default_factory=list)
    skipped: dict[int, str] = dataclasses.field(default_factory=dict)


def ticket_bulk_update(
    *, actor: Operator, items: list[tuple[int, int]], action: str, value: str
) -> BulkResult:
    """Apply one change to many tickets, each given with the version the operator saw.

    Each ticket goes through the single-ticket service in its own savepoint, so it gets the
    same checks and writes its own audit event (one audit event per ticket changed, which
    keeps the trail searchable by ticket). A ticket that is stale, forbidden or already in
    that state is skipped with the reason; the others are still changed."""
    if action not in BULK_ACTIONS:
        raise ValidationFailed(
            gettext("Unknown bulk action."),
            fields={
                "action": [gettext("Not one of %(BULK_ACTIONS)s.") % {"BULK_ACTIONS": BULK_ACTIONS}]
            },
        )
    if not items:
        raise ValidationFailed(
            gettext("Select at least one ticket."),
            fields={"tickets": [gettext("Nothing selected.")]},
        )
    if len(items) > 200:
        raise ValidationFailed(
            gettext("At most 200 tickets at once."), fields={"tickets": [gettext("Too many.")]}
        )
    result = BulkResult()
    with transaction.atomic():
        for ticket_id, version in items:
            try:
                with transaction.atomic():
                    _bulk_one(actor, ticket_id, version, action, value)
                result.updated.append(ticket_id)
            except DomainError as error:
                result.skipped[ticket_id] = error.message
    return result


def _bulk_one(actor: Operator, ticket_id: int, version: int, action: str, value: str) -> None:
    if action == "assign":
        try:
            assignee_id = int(value)
        except (TypeError, ValueError) as exc:
            raise ValidationFailed(gettext("Choose an operator.")) from exc
        ticket_assign(
            actor=actor, ticket_id=ticket_id, assignee_id=assignee_id, expected_version=version
        )
    elif action == "status":
        ticket_status_set(actor=actor, ticket_id=ticket_id, status=value, expected_version=version)
    elif action == "priority":
        ticket_priority_set(
            actor=actor, ticket_id=ticket_id, priority=value, expected_version=version
        )
    else:
        current = list(Tag.objects.filter(tickets__pk=ticket_id).values_list("name", flat=True))
        ticket_tags_set(
            actor=actor, ticket_id=ticket_id, tags=[*current, value], expected_version=version
        )


__all__ = ["BULK_ACTIONS", "BulkResult", "ticket_bulk_update"]
