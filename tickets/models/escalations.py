from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils.translation import gettext_lazy


class EscalationCategory(models.TextChoices):
    DISPUTE = "dispute", gettext_lazy("Dispute")
    POLICY_EXCEPTION = "policy_exception", gettext_lazy("Policy exception")
    OUT_OF_SCOPE = "out_of_scope", gettext_lazy("Out of scope")
    CUSTOMER_REQUEST = "customer_request", gettext_lazy("Customer asked for a human")
    AGENT_FAILURE = "agent_failure", gettext_lazy("Agent failure")


class Escalation(models.Model):
    """What the AI agent handed over: why, a summary, the whole transcript and what the
    customer wants done. One per ticket it created."""

    ticket = models.OneToOneField(
        "tickets.Ticket", on_delete=models.CASCADE, related_name="escalation"
    )
    category = models.CharField(max_length=20, choices=EscalationCategory.choices)
    reason = models.TextField()
    summary = models.TextField()
    transcript = models.JSONField(default=list, encoder=DjangoJSONEncoder)
    requested_action = models.CharField(max_length=500)
    conversation_id = models.CharField(max_length=100, blank=True)
    # Set when the card was written by the backoffice, not the AI agent (a go-live finding:
    # "finding"), with the values it is worded from (tickets.phrases.FINDING_CARD) in the
    # reader's language; reason, summary and requested_action keep its English.
    card_key = models.CharField(max_length=20, blank=True, default="")
    card_params = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_category_display()} → #{self.ticket_id}"

    @property
    def card(self) -> dict[str, str]:
        """Reason, summary and requested action in the active language (as the AI agent
        wrote them, for its escalations)."""
        from tickets.phrases import card_words

        legacy = {
            "reason": self.reason,
            "summary": self.summary,
            "requested_action": self.requested_action,
        }
        return card_words(self.card_key, self.card_params, legacy)
