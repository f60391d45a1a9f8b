"""Input and output serializers of the inbox API (one pair per operation)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from tickets.models import (
    EscalationCategory,
    Message,
    MessageKind,
    Notification,
    Priority,
    Status,
    Ticket,
    TicketEvent,
)
from tickets.services.escalations import TRANSCRIPT_KINDS


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
    body = serializers.CharField()
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


class EscalationOutSerializer(serializers.Serializer):
    category = serializers.CharField()
    reason = serializers.CharField()
    summary = serializers.CharField()
    requested_action = serializers.CharField()
    conversation_id = serializers.CharField()
    transcript = serializers.JSONField()


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


class NotificationSerializer(serializers.ModelSerializer):
    title = serializers.CharField(
        source="title_text", help_text=gettext_lazy("In the request's language.")
    )

    class Meta:
        model = Notification
        fields = [
            "id",
            "kind",
            "title",
            "title_key",
            "title_params",
            "body",
            "url",
            "created_at",
            "read_at",
        ]


class MarkReadInput(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text=gettext_lazy("Omit to mark all read."),
    )


class MarkReadOutput(serializers.Serializer):
    marked = serializers.IntegerField()


# Fast paths ----------------------------------------------------------------------------------
# The list and detail responses are built by these plain functions: nested DRF serializers
# cost about a millisecond per row, which is most of an inbox page. The serializer classes
# above stay the documented contract (drf-spectacular reads them) and a test asserts both
# produce identical output.


def _dt(value: Any) -> str | None:
    if value is None:
        return None
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _person(operator: Any) -> dict[str, Any] | None:
    return None if operator is None else {"id": operator.pk, "name": str(operator)}


def ticket_row(ticket: Ticket) -> dict[str, Any]:
    """Same output as TicketListItemSerializer(ticket).data."""
    escalation = getattr(ticket, "escalation", None)
    customer, queue = ticket.customer, ticket.queue
    return {
        "id": ticket.pk,
        "subject": ticket.subject,
        "status": ticket.status,
        "priority": ticket.priority,
        "channel": ticket.channel,
        "queue": {"id": queue.pk, "name": queue.name, "slug": queue.slug},
        "assignee": _person(ticket.assignee),
        "customer": {
            "id": customer.pk,
            "name": customer.name,
            "email": customer.email,
            "external_id": customer.external_id,
        },
        "tags": [tag.name for tag in ticket.tags.all()],
        "unrouted": ticket.unrouted,
        "escalation_category": escalation.category if escalation is not None else None,
        "version": ticket.version,
        "created_at": _dt(ticket.created_at),
        "updated_at": _dt(ticket.updated_at),
        "sla": {
            "first_response_due_at": _dt(ticket.first_response_due_at),
            "next_response_due_at": _dt(ticket.next_response_due_at),
            "resolution_due_at": _dt(ticket.resolution_due_at),
            "next_due_at": _dt(ticket.sla_next_due_at),
            "paused": ticket.is_paused,
            "paused_seconds": ticket.sla_paused_seconds,
            "near_breach": ticket.sla_near_breach,
            "breached": ticket.sla_breached,
        },
    }


def ticket_row_values(row: dict[str, Any], tags: list[str]) -> dict[str, Any]:
    """ticket_row() from a selectors.ticket_rows() dictionary (no model instances)."""
    assignee = None
    if row["assignee_id"] is not None:
        name = row["assignee__display_name"] or row["assignee__username"]
        assignee = {"id": row["assignee_id"], "name": name}
    return {
        "id": row["id"],
        "subject": row["subject"],
        "status": row["status"],
        "priority": row["priority"],
        "channel": row["channel"],
        "queue": {"id": row["queue_id"], "name": row["queue__name"], "slug": row["queue__slug"]},
        "assignee": assignee,
        "customer": {
            "id": row["customer_id"],
            "name": row["customer__name"],
            "email": row["customer__email"],
            "external_id": row["customer__external_id"],
        },
        "tags": tags,
        "unrouted": row["unrouted"],
        "escalation_category": row["escalation__category"],
        "version": row["version"],
        "created_at": _dt(row["created_at"]),
        "updated_at": _dt(row["updated_at"]),
        "sla": {
            "first_response_due_at": _dt(row["first_response_due_at"]),
            "next_response_due_at": _dt(row["next_response_due_at"]),
            "resolution_due_at": _dt(row["resolution_due_at"]),
            "next_due_at": _dt(row["sla_next_due_at"]),
            "paused": row["sla_paused_since"] is not None,
            "paused_seconds": row["sla_paused_seconds"],
            "near_breach": row["sla_near_breach"],
            "breached": row["sla_breached"],
        },
    }


def ticket_detail(
    ticket: Ticket, *, internal: bool, revision_counts: dict[int, int] | None = None
) -> dict[str, Any]:
    """Same output as TicketDetailSerializer(ticket, context={"internal": ...}).data.
    `revision_counts` (message id -> earlier texts; selectors.ticket_detail_for_api) stands
    in for prefetched revisions."""

    def revisions(message: Message) -> int:
        if revision_counts is not None:
            return revision_counts.get(message.pk, 0)
        return len(message.revisions.all())

    hidden = () if internal else (MessageKind.INTERNAL_NOTE, MessageKind.SYSTEM)
    escalation = getattr(ticket, "escalation", None)
    body = ticket_row(ticket)
    body.update(
        {
            "merged_into": ticket.merged_into_id,
            "first_responded_at": _dt(ticket.first_responded_at),
            "resolved_at": _dt(ticket.resolved_at),
            "escalation": None
            if escalation is None
            else {
                "category": escalation.category,
                "reason": escalation.reason,
                "summary": escalation.summary,
                "requested_action": escalation.requested_action,
                "conversation_id": escalation.conversation_id,
                "transcript": escalation.transcript,
            },
            "messages": [
                {
                    "id": m.pk,
                    "kind": m.kind,
                    "author": m.display_author,
                    "author_id": m.author_id,
                    "body": m.body,
                    "created_at": _dt(m.created_at),
                    "edited_at": _dt(m.edited_at),
                    "merged_from": m.merged_from_id,
                    "revisions": revisions(m),
                }
                for m in ticket.messages.all()
                if m.kind not in hidden
            ],
            "events": [
                {
                    "id": e.pk,
                    "kind": e.kind,
                    "actor": e.actor_text,
                    "summary": e.summary_text,
                    "summary_key": e.summary_key,
                    "summary_params": e.summary_params,
                    "before": e.before,
                    "after": e.after,
                    "version": e.version,
                    "created_at": _dt(e.created_at),
                }
                for e in ticket.events.all()
            ]
            if internal
            else [],
        }
    )
    return body
