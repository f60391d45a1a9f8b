"""The escalation serializers: what the AI agent sends to hand a conversation to a human,
what it gets back, and the escalation as a ticket's detail shows it."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import serializers

from tickets.models import EscalationCategory
from tickets.services.escalations import TRANSCRIPT_KINDS


class EscalationOutSerializer(serializers.Serializer):
    category = serializers.CharField()
    reason = serializers.CharField()
    summary = serializers.CharField()
    requested_action = serializers.CharField()
    conversation_id = serializers.CharField()
    transcript = serializers.JSONField()


class EscalationCustomerInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    external_id = serializers.CharField(
        max_length=100, required=False, allow_blank=True, default=""
    )


class ToolCallInput(serializers.Serializer):
    """One tool call of the agent's turn: name and arguments, and what came back (a result,
    or an error)."""

    id = serializers.CharField(max_length=100, required=False, allow_blank=True)
    name = serializers.CharField(max_length=100)
    arguments = serializers.JSONField(required=False, default=dict)
    result = serializers.JSONField(required=False)
    error = serializers.CharField(max_length=5000, required=False, allow_blank=True)


class TranscriptTurnInput(serializers.Serializer):
    role = serializers.ChoiceField(choices=sorted(TRANSCRIPT_KINDS))
    # An agent turn that only called tools may have no text.
    content = serializers.CharField(max_length=20_000, required=False, allow_blank=True, default="")
    at = serializers.DateTimeField(required=False)
    tool_calls = serializers.ListField(child=ToolCallInput(), required=False, max_length=50)
    # A "tool" turn answering a call above (OpenAI's shape): folded into that call's result.
    tool_call_id = serializers.CharField(max_length=100, required=False, allow_blank=True)
    is_error = serializers.BooleanField(required=False, default=False)


class EscalationInput(serializers.Serializer):
    customer = EscalationCustomerInput()
    category = serializers.ChoiceField(choices=EscalationCategory.choices)
    reason = serializers.CharField(max_length=2000)
    summary = serializers.CharField(max_length=5000)
    transcript = serializers.ListField(child=TranscriptTurnInput(), min_length=1, max_length=500)
    requested_action = serializers.CharField(max_length=500)
    subject = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")
    queue = serializers.SlugField(required=False, allow_blank=True, default="")
    conversation_id = serializers.CharField(
        max_length=100, required=False, allow_blank=True, default=""
    )
    tags = serializers.ListField(
        child=serializers.CharField(max_length=50), required=False, default=list, max_length=10
    )


class EscalationOutput(serializers.Serializer):
    ticket_id = serializers.IntegerField()
    owner = serializers.DictField(
        allow_null=True, help_text=gettext_lazy("{id, name} of the named owner, or null.")
    )
    owner_name = serializers.CharField(allow_null=True)
    unrouted = serializers.BooleanField(
        help_text=gettext_lazy(
            "True when nobody in the queue was on duty with capacity; the ticket is "
            "routed as soon as someone is."
        )
    )
    priority = serializers.CharField()
    queue = serializers.CharField()
