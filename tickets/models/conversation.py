from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils.translation import gettext_lazy


class MessageKind(models.TextChoices):
    CUSTOMER = "customer", gettext_lazy("Customer")
    AI_AGENT = "ai_agent", gettext_lazy("AI agent")
    PUBLIC_REPLY = "public_reply", gettext_lazy("Public reply")
    INTERNAL_NOTE = "internal_note", gettext_lazy("Internal note")
    SYSTEM = "system", gettext_lazy("System")


class Message(models.Model):
    ticket = models.ForeignKey("tickets.Ticket", on_delete=models.CASCADE, related_name="messages")
    kind = models.CharField(max_length=16, choices=MessageKind.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ticket_messages",
    )
    # Who wrote it when there is no operator: the customer's name, "AI agent", "System".
    author_label = models.CharField(max_length=200, blank=True)
    body = models.TextField()
    # A system note written by a service: a key of tickets.phrases.NOTES (or "finding") and
    # its parameters, worded when shown in the reader's language; `body` keeps its English
    # (the API, search). Null for every other message, and for a note stored before notes had
    # keys (shown as its body). Nullable for the reason tool_calls is.
    body_key = models.CharField(max_length=40, null=True, blank=True)  # noqa: DJ001
    body_params = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    # The AI agent's tool calls made in this turn of an escalated conversation, each
    # {"name", "arguments", "result" or "error"}. Null for every other message (nullable so
    # that adding it altered the table in place: SQLite would otherwise rebuild it and drop
    # the search triggers of migration 0008).
    tool_calls = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()
    edited_at = models.DateTimeField(null=True, blank=True)
    # Set on messages moved here by a merge: the ticket they were written on.
    merged_from = models.ForeignKey(
        "tickets.Ticket",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["ticket", "created_at"], name="message_ticket_created")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on #{self.ticket_id}"

    @property
    def is_note(self) -> bool:
        return self.kind == MessageKind.INTERNAL_NOTE

    @property
    def display_author(self) -> str:
        if self.author_id is not None:
            return str(self.author)
        return self.author_label or self.get_kind_display()

    @property
    def author_text(self) -> str:
        """display_author in the active language, when it is one of the services' fixed
        names ("AI agent", "System"); a person's or customer's name as it is."""
        from tickets.phrases import author_words

        if self.author_id is not None:
            return str(self.author)
        if not self.author_label:
            return self.get_kind_display()
        return author_words(self.author_label, customer=self.kind == MessageKind.CUSTOMER)

    @property
    def body_text(self) -> str:
        """The body in the active language: a keyed system note worded now, else as stored."""
        if not self.body_key:
            return self.body
        from tickets.phrases import note_words

        return note_words(self.body_key, self.body_params, self.body)


class NoteRevision(models.Model):
    """The text a note had before an edit; the current text is on the Message."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="revisions")
    body = models.TextField()
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    edited_at = models.DateTimeField()

    class Meta:
        ordering = ["-edited_at", "-id"]

    def __str__(self) -> str:
        return f"revision of message {self.message_id}"


class Mention(models.Model):
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="mentions")
    operator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ticket_mentions"
    )
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["message", "operator"], name="mention_unique")
        ]

    def __str__(self) -> str:
        return f"@{self.operator} in message {self.message_id}"
