from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils.translation import gettext_lazy


class TicketEventKind(models.TextChoices):
    CREATED = "created", gettext_lazy("Created")
    STATUS = "status", gettext_lazy("Status")
    PRIORITY = "priority", gettext_lazy("Priority")
    ASSIGNEE = "assignee", gettext_lazy("Assignee")
    TAGS = "tags", gettext_lazy("Tags")
    SLA = "sla", gettext_lazy("SLA")
    MERGE = "merge", gettext_lazy("Merge")
    REPLY = "reply", gettext_lazy("Public reply")
    NOTE = "note", gettext_lazy("Internal note")
    NOTE_EDIT = "note_edit", gettext_lazy("Note edited")
    CUSTOMER_MESSAGE = "customer_message", gettext_lazy("Customer message")


class TicketEvent(models.Model):
    """The ticket's timeline: one row per change, with who, when, before and after.
    `version` is the ticket's version after the change, so a stale view can be told exactly
    what happened since the version it saw."""

    ticket = models.ForeignKey("tickets.Ticket", on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=TicketEventKind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    actor_label = models.CharField(max_length=150)
    before = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    after = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    # What happened, as a key of tickets.phrases.EVENTS and its parameters: worded when shown,
    # in the reader's language. `summary` keeps the English (API readers, logs); a row written
    # before keys existed has no key, and its stored summary is shown as it is.
    summary = models.CharField(max_length=300)
    summary_key = models.CharField(max_length=40, blank=True, default="")
    summary_params = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["ticket", "version"], name="ticketevent_ticket_version")]

    def __str__(self) -> str:
        return f"#{self.ticket_id} {self.summary}"

    @property
    def summary_text(self) -> str:
        """The summary in the active language (the stored English for a row without a key)."""
        from tickets.phrases import event_words

        return event_words(self.summary_key, self.summary_params, self.summary)

    @property
    def actor_text(self) -> str:
        """Who did it: the operator's name, or the system's part in the active language."""
        from tickets.phrases import actor_words

        return self.actor_label if self.actor_id else actor_words(self.actor_label)


class NotificationKind(models.TextChoices):
    """Kinds the inbox sends; other apps pass their own dotted kinds (e.g. refund.approval)."""

    ASSIGNMENT = "assignment", gettext_lazy("Assignment")
    MENTION = "mention", gettext_lazy("Mention")
    SLA_NEAR_BREACH = "sla_near_breach", gettext_lazy("SLA near breach")
    SLA_BREACH = "sla_breach", gettext_lazy("SLA breached")


class Notification(models.Model):
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=50)
    # The title as a key of tickets.phrases.NOTIFICATIONS and its parameters, worded when
    # shown (or e-mailed) in the reader's language; `title` keeps the English, and is what a
    # row written before keys existed shows.
    title = models.CharField(max_length=200)
    title_key = models.CharField(max_length=50, blank=True, default="")
    title_params = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    body = models.TextField(blank=True)
    url = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField()
    read_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["recipient", "read_at", "created_at"], name="notification_inbox")
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.recipient_id}: {self.title}"

    @property
    def title_text(self) -> str:
        """The title in the active language (the stored title for a row without a key)."""
        from tickets.phrases import notification_words

        return notification_words(self.title_key, self.title_params, self.title)


class TicketPresence(models.Model):
    """An operator had the ticket open at `last_seen_at` (refreshed by the page's poll)."""

    ticket = models.ForeignKey("tickets.Ticket", on_delete=models.CASCADE, related_name="presence")
    operator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    last_seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ticket", "operator"], name="presence_unique")
        ]
        indexes = [models.Index(fields=["ticket", "last_seen_at"], name="presence_ticket_seen")]

    def __str__(self) -> str:
        return f"{self.operator_id} on #{self.ticket_id}"
