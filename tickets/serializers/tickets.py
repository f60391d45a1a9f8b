"""The ticket serializers of the inbox API: the list item, the detail with its conversation
and timeline, the change answer, and the inputs of every versioned write."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from tickets.models import Message, MessageKind, Priority, Status, Ticket, TicketEvent
from tickets.serializers.escalations import EscalationOutSerializer


class PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(source="__str__")


class QueueRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()


class CustomerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    email = serializers.EmailField()
    external_id = serializers.CharField()


class SlaSerializer(serializers.Serializer):
    first_response_due_at = serializers.DateTimeField(allow_null=True)
    next_response_due_at = serializers.DateTimeField(allow_null=True)
    resolution_due_at = serializers.DateTimeField(allow_null=True)
    next_due_at = serializers.DateTimeField(source="sla_next_due_at", allow_null=True)
    paused = serializers.BooleanField(source="is_paused")
    paused_seconds = serializers.IntegerField(source="sla_paused_seconds")
    near_breach = serializers.BooleanField(source="sla_near_breach")
    breached = serializers.BooleanField(source="sla_breached")


class TicketListItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    subject = serializers.CharField()
    status = serializers.ChoiceField(choices=Status.choices)
    priority = serializers.ChoiceField(choices=Priority.choices)
    channel = serializers.CharField()
    queue = QueueRefSerializer()
    assignee = PersonSerializer(allow_null=True)
    customer = CustomerSerializer()
    tags = serializers.SerializerMethodField()
    unrouted = serializers.BooleanField()
    escalation_category = serializers.SerializerMethodField()
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    sla = SlaSerializer(source="*")

    def get_tags(self, ticket: Ticket) -> list[str]:
        return [tag.name for tag in ticket.tags.all()]

    def get_escalation_category(self, ticket: Ticket) -> str | None:
        escalation = getattr(ticket, "escalation", None)
        return escalation.category if escalation is not None else None


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=MessageKind.choices)
    author = serializers.CharField(source="display_author")
    author_id = serializers.IntegerField(allow_null=True)
    body = serializers.CharField(
        source="body_text",
        help_text=gettext_lazy("A system note in the request's language; any other as written."),
    )
    created_at = serializers.DateTimeField()
    edited_at = serializers.DateTimeField(allow_null=True)
    merged_from = serializers.IntegerField(source="merged_from_id", allow_null=True)
    revisions = serializers.SerializerMethodField()

    def get_revisions(self, message: Message) -> int:
        return len(message.revisions.all())


class EventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    actor = serializers.CharField(source="actor_text")
    summary = serializers.CharField(
        source="summary_text", help_text=gettext_lazy("In the request's language.")
    )
    summary_key = serializers.CharField(
        help_text=gettext_lazy(
            "What happened, as a stable key (empty on entries from before keys)."
        )
    )
    summary_params = serializers.JSONField()
    before = serializers.JSONField()
    after = serializers.JSONField()
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class TicketDetailSerializer(TicketListItemSerializer):
    merged_into = serializers.IntegerField(source="merged_into_id", allow_null=True)
    first_responded_at = serializers.DateTimeField(allow_null=True)
    resolved_at = serializers.DateTimeField(allow_null=True)
    escalation = serializers.SerializerMethodField()
    messages = serializers.SerializerMethodField()
    events = serializers.SerializerMethodField()

    def get_escalation(self, ticket: Ticket) -> dict[str, Any] | None:
        escalation = getattr(ticket, "escalation", None)
        return EscalationOutSerializer(escalation).data if escalation is not None else None

    def _internal(self) -> bool:
        return bool(self.context.get("internal", True))

    def get_messages(self, ticket: Ticket) -> list[dict[str, Any]]:
        hidden = () if self._internal() else (MessageKind.INTERNAL_NOTE, MessageKind.SYSTEM)
        # The stubs type `.data` as the single-object ReturnDict even with many=True, where
        # DRF builds a ListSerializer whose `.data` is a ReturnList.
        return MessageSerializer(  # type: ignore[return-value]
            [m for m in ticket.messages.all() if m.kind not in hidden], many=True
        ).data

    def get_events(self, ticket: Ticket) -> list[dict[str, Any]]:
        if not self._internal():
            return []
        events: list[TicketEvent] = list(ticket.events.all())
        # many=True: a ReturnList at runtime, typed ReturnDict by the stubs (as above).
        return EventSerializer(events, many=True).data  # type: ignore[return-value]


class VersionedInput(serializers.Serializer):
    version = serializers.IntegerField(
        min_value=1, help_text=gettext_lazy("The ticket version you saw; a stale version gets 409.")
    )


class ReplyInput(VersionedInput):
    body = serializers.CharField(max_length=50_000)
    status = serializers.ChoiceField(choices=Status.choices, required=False, allow_blank=True)


class NoteInput(VersionedInput):
    body = serializers.CharField(max_length=50_000)


class AssignmentInput(VersionedInput):
    assignee_id = serializers.IntegerField(required=False)
    take = serializers.BooleanField(
        default=False, help_text=gettext_lazy("Assign the ticket to yourself.")
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("take") and not attrs.get("assignee_id"):
            raise serializers.ValidationError(
                {"assignee_id": [gettext("Give an assignee, or take: true.")]}
            )
        return attrs


class StatusInput(VersionedInput):
    status = serializers.ChoiceField(choices=Status.choices)


class PriorityInput(VersionedInput):
    priority = serializers.ChoiceField(choices=Priority.choices)


class TagsInput(VersionedInput):
    tags = serializers.ListField(child=serializers.CharField(max_length=50), max_length=20)


class MergeInput(VersionedInput):
    target_id = serializers.IntegerField()
    target_version = serializers.IntegerField(min_value=1)


class CustomerMessageInput(serializers.Serializer):
    body = serializers.CharField(max_length=50_000)
    author = serializers.CharField(max_length=200, required=False, allow_blank=True)


class MessageOutSerializer(MessageSerializer):
    ticket_version = serializers.IntegerField(source="ticket.version")


class TicketChangeOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    priority = serializers.CharField()
    assignee = PersonSerializer(allow_null=True)
    tags = serializers.SerializerMethodField()
    version = serializers.IntegerField()

    def get_tags(self, ticket: Ticket) -> list[str]:
        return sorted(tag.name for tag in ticket.tags.all())
