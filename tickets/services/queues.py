"""Queues: create one, change its name, members, per-operator capacity and SLA targets.

One way to each: `queue_create` creates a new queue and refuses a taken name or slug (it never
updates another queue); `queue_update` changes one and writes nothing when nothing changes,
so a rerun of `seed_demo` (which creates what is missing and updates the rest) or a form
saved unchanged leaves no audit noise. `actor=None` is the seed acting as the system.

Any change that can give a queue spare capacity (a member added, a higher cap) routes the
queue's waiting tickets at once, through the same routing.route_queue the duty toggle and
the beat sweep use, so a ticket never waits unrouted while a member has room.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from django.db import transaction
from django.db.models import Q
from django.utils.text import slugify
from django.utils.translation import gettext

from backoffice.errors import Forbidden, NotFound, ValidationFailed
from identity.audit import audit_record
from identity.models import Operator, OperatorKind
from tickets import routing, sla
from tickets.models import Priority, Queue, QueueMembership, SlaTarget

MANAGE = "tickets.manage_queues"
MAX_CAPACITY = 500


@dataclasses.dataclass(frozen=True)
class QueueChange:
    queue: Queue
    # Names of what changed ("name", "members", "sla.urgent", ...); empty when nothing did.
    changed: list[str]
    routed: list[routing.Routed]


def can_manage_queues(operator: Operator) -> bool:
    return not operator.is_service_principal and operator.has_perm(MANAGE)


def _ensure_manager(actor: Operator | None) -> None:
    # actor None is the seed (a management command acting as the system).
    if actor is not None and not can_manage_queues(actor):
        raise Forbidden(gettext("You may not manage queues."))


def _validated(
    *, queue_id: int | None, name: str, slug: str, capacity_per_operator: int
) -> tuple[str, str]:
    errors: dict[str, list[str]] = {}
    name = " ".join((name or "").split())
    slug = (slug or "").strip()
    if not name:
        errors["name"] = ["This field is required."]
    elif len(name) > 100:
        errors["name"] = ["At most 100 characters."]
    if not slug:
        errors["slug"] = ["This field is required."]
    elif slugify(slug) != slug or len(slug) > 50:
        errors["slug"] = ["Lower-case letters, digits and hyphens only (at most 50)."]
    if not 1 <= capacity_per_operator <= MAX_CAPACITY:
        errors["capacity_per_operator"] = [f"Between 1 and {MAX_CAPACITY} tickets."]
    others = Queue.objects.exclude(pk=queue_id) if queue_id else Queue.objects.all()
    taken = others.filter(Q(name__iexact=name) | Q(slug=slug)).values_list("name", "slug")
    for other_name, other_slug in taken:
        if other_name.lower() == name.lower():
            errors["name"] = [f"Another queue is already called {other_name!r}."]
        if other_slug == slug:
            errors["slug"] = [f"Another queue already uses the slug {slug!r}."]
    if errors:
        raise ValidationFailed(gettext("The queue is not valid."), fields=errors)
    return name, slug


def _members(member_ids: Collection[int]) -> dict[int, Operator]:
    """The operators named, each an active human who works tickets."""
    wanted = set(member_ids)
    found = {
        op.pk: op
        for op in Operator.objects.filter(pk__in=wanted, is_active=True, kind=OperatorKind.HUMAN)
        if op.has_perm("tickets.work_tickets")
    }
    if missing := wanted - found.keys():
        raise ValidationFailed(
            gettext("Some members cannot work tickets."),
            fields={
                "members": [
                    gettext("Operator %(pk)s is not an active operator who works tickets.")
                    % {"pk": pk}
                    for pk in sorted(missing)
                ]
            },
        )
    return found


def _check_targets(targets: Mapping[str, sla.Targets | None]) -> None:
    unknown = sorted(set(targets) - set(Priority.values))
    if unknown:
        raise ValidationFailed(
            gettext("Unknown priority."),
            fields={
                "targets": [gettext("Not priorities: %(join)s.") % {"join": ", ".join(unknown)}]
            },
        )


def queue_create(
    *,
    actor: Operator | None,
    name: str,
    slug: str,
    description: str = "",
    capacity_per_operator: int = 10,
    member_ids: Collection[int] = (),
    targets: Mapping[str, sla.Targets] | None = None,
) -> Queue:
    """Create a new queue with its members and SLA targets; a name or slug already in use is
    a field error, never an update of the other queue. One `queue.create` audit event."""
    _ensure_manager(actor)
    _check_targets(targets or {})
    with transaction.atomic():
        name, slug = _validated(
            queue_id=None, name=name, slug=slug, capacity_per_operator=capacity_per_operator
        )
        members = _members(member_ids)
        description = (description or "").strip()[:300]
        queue = Queue.objects.create(
            name=name,
            slug=slug,
            capacity_per_operator=capacity_per_operator,
            description=description,
        )
        QueueMembership.objects.bulk_create(
            [QueueMembership(queue=queue, operator=members[pk]) for pk in sorted(members)]
        )
        SlaTarget.objects.bulk_create(
            [
                SlaTarget(
                    queue=queue,
                    priority=priority,
                    first_response_minutes=target.first_response,
                    next_response_minutes=target.next_response,
                    resolution_minutes=target.resolution,
                )
                for priority, target in (targets or {}).items()
            ]
        )
        audit_record(
            actor=actor,
            action="queue.create",
            target=queue,
            after={
                "name": name,
                "capacity_per_operator": capacity_per_operator,
                "members": sorted(members),
                "targets": {p: dataclasses.asdict(t) for p, t in (targets or {}).items()},
            },
        )
    return queue


Change = dict[str, object]


def _settings_change(queue: Queue, fields: dict[str, object]) -> tuple[Change, Change]:
    """Save the queue's settings that differ from `fields`; what they were and are now."""
    before: Change = {}
    after: Change = {}
    for field, value in fields.items():
        if getattr(queue, field) != value:
            before[field], after[field] = getattr(queue, field), value
            setattr(queue, field, value)
    if after:
        queue.save(update_fields=list(after))
    return before, after


def _members_change(queue: Queue, wanted: set[int], before: Change, after: Change) -> set[int]:
    """Make `wanted` the queue's whole membership, noting the change; who was added."""
    current = set(QueueMembership.objects.filter(queue=queue).values_list("operator_id", flat=True))
    added, removed = wanted - current, current - wanted
    if added or removed:
        _members(added)
        QueueMembership.objects.bulk_create(
            [QueueMembership(queue=queue, operator_id=pk) for pk in sorted(added)]
        )
        QueueMembership.objects.filter(queue=queue, operator_id__in=removed).delete()
        before["members"], after["members"] = sorted(current), sorted(wanted)
    return added


def _targets_change(
    queue: Queue,
    targets: Mapping[str, sla.Targets | None],
    before: Change,
    after: Change,
) -> None:
    """Set or drop (None) the queue's SLA overrides per priority, noting each that changes."""
    for priority, target in targets.items():
        row = SlaTarget.objects.filter(queue=queue, priority=priority).first()
        old = (
            sla.Targets(
                row.first_response_minutes, row.next_response_minutes, row.resolution_minutes
            )
            if row
            else None
        )
        if old == target:
            continue
        key = f"sla.{priority}"
        before[key] = dataclasses.asdict(old) if old else None
        after[key] = dataclasses.asdict(target) if target else None
        if target is None:
            SlaTarget.objects.filter(queue=queue, priority=priority).delete()
        else:
            SlaTarget.objects.update_or_create(
                queue=queue,
                priority=priority,
                defaults={
                    "first_response_minutes": target.first_response,
                    "next_response_minutes": target.next_response,
                    "resolution_minutes": target.resolution,
                },
            )


def queue_update(
    *,
    actor: Operator | None,
    queue_id: int,
    name: str | None = None,
    slug: str | None = None,
    description: str | None = None,
    capacity_per_operator: int | None = None,
    member_ids: Collection[int] | None = None,
    targets: Mapping[str, sla.Targets | None] | None = None,
) -> QueueChange:
    """Change what is given (None leaves a setting as it is). `member_ids` is the whole new
    membership; in `targets` a priority mapped to None drops the queue's override so the
    defaults apply again. Targets apply to tickets created or re-prioritised afterwards.

    Nothing changed: no write, no audit event. Otherwise one `queue.update` audit event with
    the changed values before and after, and the queue's waiting tickets routed if a member
    was added or the cap was raised."""
    _ensure_manager(actor)
    _check_targets(targets or {})
    with transaction.atomic():
        # Locked like routing locks it, so a routing pass never sees half an update.
        queue = Queue.objects.select_for_update().filter(pk=queue_id).first()
        if queue is None:
            raise NotFound(gettext("No such queue."))
        new_name, new_slug = _validated(
            queue_id=queue.pk,
            name=queue.name if name is None else name,
            slug=queue.slug if slug is None else slug,
            capacity_per_operator=queue.capacity_per_operator
            if capacity_per_operator is None
            else capacity_per_operator,
        )
        old_capacity = queue.capacity_per_operator
        before, after = _settings_change(
            queue,
            {
                "name": new_name,
                "slug": new_slug,
                "description": queue.description
                if description is None
                else description.strip()[:300],
                "capacity_per_operator": old_capacity
                if capacity_per_operator is None
                else capacity_per_operator,
            },
        )
        added: set[int] = set()
        if member_ids is not None:
            added = _members_change(queue, set(member_ids), before, after)
        _targets_change(queue, targets or {}, before, after)

        if not after:
            return QueueChange(queue=queue, changed=[], routed=[])
        routed: list[routing.Routed] = []
        if added or queue.capacity_per_operator > old_capacity:
            routed = routing.route_queue(queue.pk)
        audit_record(
            actor=actor,
            action="queue.update",
            target=queue,
            before=before,
            after={**after, "routed": [r.ticket_id for r in routed]},
        )
    return QueueChange(queue=queue, changed=sorted(after), routed=routed)


__all__ = ["QueueChange", "can_manage_queues", "queue_create", "queue_update"]
