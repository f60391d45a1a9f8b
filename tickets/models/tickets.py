from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Case, Q, Value, When
from django.db.models.functions import Upper
from django.utils.translation import gettext_lazy


class Status(models.TextChoices):
    NEW = "new", gettext_lazy("New")
    OPEN = "open", gettext_lazy("Open")
    PENDING_CUSTOMER = "pending_customer", gettext_lazy("Pending customer")
    ON_HOLD = "on_hold", gettext_lazy("On hold")
    ESCALATED = "escalated", gettext_lazy("Escalated")
    RESOLVED = "resolved", gettext_lazy("Resolved")
    CLOSED = "closed", gettext_lazy("Closed")


# Statuses that count against an operator's capacity and that the SLA clocks run for.
ACTIVE_STATUSES = (
    Status.NEW,
    Status.OPEN,
    Status.PENDING_CUSTOMER,
    Status.ON_HOLD,
    Status.ESCALATED,
)
# The customer (or a third party) holds the ball: SLA clocks stop.
PAUSED_STATUSES = (Status.PENDING_CUSTOMER, Status.ON_HOLD)


class Priority(models.TextChoices):
    LOW = "low", gettext_lazy("Low")
    NORMAL = "normal", gettext_lazy("Normal")
    HIGH = "high", gettext_lazy("High")
    URGENT = "urgent", gettext_lazy("Urgent")


PRIORITY_RANK = {Priority.LOW: 1, Priority.NORMAL: 2, Priority.HIGH: 3, Priority.URGENT: 4}


class Channel(models.TextChoices):
    EMAIL = "email", gettext_lazy("Email")
    CHAT = "chat", gettext_lazy("Chat")
    PHONE = "phone", gettext_lazy("Phone")
    WEB = "web", gettext_lazy("Web form")
    AI_AGENT = "ai_agent", gettext_lazy("AI agent")


class Customer(models.Model):
    name = models.CharField(max_length=200)
    email = models.EmailField(blank=True, db_index=True)
    external_id = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        # customer_upsert matches emails case-insensitively as UPPER(email) = UPPER(%s).
        indexes = [models.Index(Upper("email"), name="customer_email_upper")]
        constraints = [
            models.UniqueConstraint(
                fields=["external_id"],
                condition=~Q(external_id=""),
                name="customer_external_id_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>" if self.email else self.name

    @property
    def name_text(self) -> str:
        """The name to show: the go-live findings' simulated customer, whose name the
        backoffice wrote, in the reader's language; anyone else's as it is."""
        from tickets import access
        from tickets.phrases import author_words

        if self.external_id == access.SIMULATED_CUSTOMER_EXTERNAL_ID:
            return author_words(self.name, customer=True)
        return self.name


class Tag(models.Model):
    """A normalised label (lower case, no surrounding blanks), shared by tickets."""

    name = models.CharField(max_length=50, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Ticket(models.Model):
    subject = models.CharField(max_length=300)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="tickets")
    channel = models.CharField(max_length=16, choices=Channel.choices, default=Channel.EMAIL)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.NEW)
    priority = models.CharField(max_length=16, choices=Priority.choices, default=Priority.NORMAL)
    # Computed by the database so "most urgent first" sorts on an indexable integer.
    priority_rank = models.GeneratedField(
        expression=Case(
            When(priority=Priority.URGENT, then=Value(4)),
            When(priority=Priority.HIGH, then=Value(3)),
            When(priority=Priority.NORMAL, then=Value(2)),
            default=Value(1),
        ),
        output_field=models.PositiveSmallIntegerField(),
        db_persist=True,
    )
    queue = models.ForeignKey("tickets.Queue", on_delete=models.PROTECT, related_name="tickets")
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="assigned_tickets",
    )
    assigned_at = models.DateTimeField(null=True, blank=True)
    # No on-duty member of the queue had capacity when the ticket needed an owner; the next
    # routing pass (duty toggle, a resolution freeing capacity, the beat sweep) picks it up.
    unrouted = models.BooleanField(default=False)
    tags = models.ManyToManyField(Tag, blank=True, related_name="tickets")

    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    last_customer_message_at = models.DateTimeField(null=True, blank=True)
    first_responded_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    # SLA: due times already include any paused time before the last resume.
    first_response_due_at = models.DateTimeField(null=True, blank=True)
    next_response_due_at = models.DateTimeField(null=True, blank=True)
    resolution_due_at = models.DateTimeField(null=True, blank=True)
    sla_next_due_at = models.DateTimeField(null=True, blank=True)
    sla_paused_since = models.DateTimeField(null=True, blank=True)
    sla_paused_seconds = models.PositiveIntegerField(default=0)
    sla_near_breach = models.BooleanField(default=False)
    sla_breached = models.BooleanField(default=False)

    # Optimistic concurrency: every change increments it with a compare-and-set UPDATE.
    version = models.PositiveIntegerField(default=1)
    # Indexed only where set (see Meta): nearly every ticket has NULL here, and a full index
    # makes SQLite's planner believe any lookup returns every row and scan the table.
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="merged_tickets",
        db_index=False,
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"], name="ticket_status_created"),
            models.Index(
                fields=["assignee", "status", "created_at"], name="ticket_assignee_status"
            ),
            models.Index(fields=["queue", "status", "created_at"], name="ticket_queue_status"),
            # Routing's "waiting tickets of this queue, oldest first": few rows are unrouted,
            # so a partial index answers it without touching the assignee/status indexes
            # (which SQLite's planner otherwise picks and then sorts thousands of rows).
            models.Index(
                fields=["queue", "created_at", "id"],
                condition=Q(unrouted=True),
                name="ticket_unrouted_waiting",
            ),
            models.Index(fields=["sla_next_due_at"], name="ticket_sla_next_due"),
            # "Newest first" (the default sort) and "most urgent first" walk these indexes
            # and stop after one page instead of sorting every row.
            models.Index(fields=["created_at", "id"], name="ticket_created"),
            models.Index(
                fields=["-priority_rank", "created_at", "id"], name="ticket_priority_rank"
            ),
            models.Index(fields=["updated_at"], name="ticket_updated"),
            models.Index(fields=["customer", "created_at"], name="ticket_customer"),
            models.Index(
                fields=["merged_into"],
                condition=Q(merged_into__isnull=False),
                name="ticket_merged_into",
            ),
        ]
        permissions = [
            ("work_tickets", "Can work tickets in own queues"),
            ("view_all_tickets", "Can see every ticket"),
            ("assign_tickets", "Can assign and reassign any ticket"),
            ("merge_tickets", "Can merge tickets"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.subject}"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def is_paused(self) -> bool:
        return self.sla_paused_since is not None
