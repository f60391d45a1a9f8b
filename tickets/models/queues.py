from __future__ import annotations

from django.conf import settings
from django.db import models


class Queue(models.Model):
    """A team's share of the work. New tickets in a queue are routed to its on-duty members;
    each member holds at most `capacity_per_operator` active tickets (unless their
    availability overrides it)."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=50, unique=True)
    description = models.CharField(max_length=300, blank=True)
    capacity_per_operator = models.PositiveIntegerField(default=10)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        permissions = [("manage_queues", "Can manage queues, members and SLA targets")]

    def __str__(self) -> str:
        return self.name


class SlaTarget(models.Model):
    """A queue's targets for one priority, in minutes. A priority without a row uses the
    defaults in tickets.sla.DEFAULT_TARGETS."""

    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="sla_targets")
    priority = models.CharField(max_length=16)
    first_response_minutes = models.PositiveIntegerField()
    next_response_minutes = models.PositiveIntegerField()
    resolution_minutes = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["queue", "priority"], name="sla_target_unique"),
            models.CheckConstraint(
                condition=models.Q(first_response_minutes__gt=0)
                & models.Q(next_response_minutes__gt=0)
                & models.Q(resolution_minutes__gt=0),
                name="sla_target_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.queue} · {self.priority}"


class QueueMembership(models.Model):
    """An operator works a queue. `last_assigned_at` is the fairness clock: routing picks
    the member who was assigned a ticket in this queue least recently."""

    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="memberships")
    operator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_memberships"
    )
    last_assigned_at = models.DateTimeField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["queue", "operator"], name="queue_membership_unique")
        ]
        indexes = [models.Index(fields=["operator", "queue"])]

    def __str__(self) -> str:
        return f"{self.operator} in {self.queue}"


class OperatorAvailability(models.Model):
    """Whether an operator takes new tickets now, and an optional personal capacity that
    replaces the queues' per-operator cap."""

    operator = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="availability"
    )
    on_duty = models.BooleanField(default=False)
    capacity_override = models.PositiveIntegerField(null=True, blank=True)
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "operator availabilities"

    def __str__(self) -> str:
        return f"{self.operator} ({'on' if self.on_duty else 'off'} duty)"


class OperatorLoad(models.Model):
    """How many active tickets (ACTIVE_STATUSES) an operator owns, kept exact by the
    services that assign, reassign, take, resolve, close, reopen and merge (all through
    tickets.routing.load_apply), so routing reads a number instead of counting a million
    rows. The row is also the operator's routing lock: a routing pass locks the rows of
    every candidate before it reads their loads, so two queues routing to the same operator
    at once wait for each other instead of both filling the last slot.

    No row means no active ticket. tickets.routing.load_recount rebuilds the rows from the
    tickets: the repair path, run by the migration that added it, after bulk loads, and by
    the operator_loads_recount service."""

    operator = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="ticket_load",
    )
    active_tickets = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.operator_id}: {self.active_tickets} active"
