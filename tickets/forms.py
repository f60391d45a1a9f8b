"""HTML form parsing for the inbox pages (the API has its own serializers)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_lazy

from identity.models import Operator
from tickets import sla
from tickets.models import Channel, Priority, Queue, Status
from tickets.services.bulk import BULK_ACTIONS
from tickets.services.intake import OPERATOR_CHANNELS


class VersionedForm(forms.Form):
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class ReplyForm(VersionedForm):
    body = forms.CharField(widget=forms.Textarea, max_length=50_000)
    status = forms.ChoiceField(choices=[("", "Keep status"), *Status.choices], required=False)


class NoteForm(VersionedForm):
    body = forms.CharField(widget=forms.Textarea, max_length=50_000)


class AssignForm(VersionedForm):
    assignee = forms.IntegerField()


class StatusForm(VersionedForm):
    status = forms.ChoiceField(choices=Status.choices)


class PriorityForm(VersionedForm):
    priority = forms.ChoiceField(choices=Priority.choices)


class TagsForm(VersionedForm):
    tags = forms.CharField(required=False, max_length=1000)

    def tag_list(self) -> list[str]:
        return [t for t in self.cleaned_data["tags"].split(",") if t.strip()]


class MergeForm(VersionedForm):
    target = forms.IntegerField(min_value=1)
    target_version = forms.IntegerField(min_value=1, required=False)


class BulkForm(forms.Form):
    action = forms.ChoiceField(
        choices=[(a, a) for a in BULK_ACTIONS],
        error_messages={
            "required": gettext_lazy("Choose a bulk action."),
            "invalid_choice": gettext_lazy("Choose a bulk action."),
        },
    )
    assignee = forms.CharField(required=False)
    status = forms.CharField(required=False)
    priority = forms.CharField(required=False)
    tag = forms.CharField(required=False, max_length=50)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        action = data.get("action")
        if action and not (data.get("assignee" if action == "assign" else action) or "").strip():
            missing = {
                "assign": gettext("Choose an assignee to apply."),
                "status": gettext("Choose a status to apply."),
                "priority": gettext("Choose a priority to apply."),
            }
            self.add_error(None, missing.get(action, gettext("Choose a tag to apply.")))
        return data

    def value(self) -> str:
        action = self.cleaned_data["action"]
        return self.cleaned_data.get("assignee" if action == "assign" else action) or ""


def parse_selection(raw: list[str]) -> list[tuple[int, int]]:
    """Checkbox values are "<ticket id>:<version seen>"; malformed ones are ignored."""
    items = []
    for value in raw:
        ticket_id, _, version = value.partition(":")
        if ticket_id.isdigit() and version.isdigit():
            items.append((int(ticket_id), int(version)))
    return items


class TicketOpenForm(forms.Form):
    """The new-ticket page: an operator logs a ticket for a customer on the phone, by email
    or in chat. Field names match ticket_open_for_customer's so service errors land on them."""

    customer_id = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    customer_name = forms.CharField(required=False, max_length=200, label=gettext_lazy("Name"))
    customer_email = forms.EmailField(required=False, label=gettext_lazy("Email"))
    customer_external_id = forms.CharField(
        required=False, max_length=100, label=gettext_lazy("External id")
    )
    channel = forms.ChoiceField(
        choices=[(c.value, c.label) for c in OPERATOR_CHANNELS], initial=Channel.PHONE
    )
    subject = forms.CharField(max_length=300)
    customer_message = forms.CharField(
        required=False,
        max_length=50_000,
        widget=forms.Textarea(attrs={"rows": 5}),
        label=gettext_lazy("The customer's words"),
    )
    internal_note = forms.CharField(
        required=False,
        max_length=50_000,
        widget=forms.Textarea(attrs={"rows": 3}),
        label=gettext_lazy("Internal note"),
    )
    queue = forms.TypedChoiceField(coerce=int, choices=[])
    priority = forms.ChoiceField(choices=Priority.choices, initial=Priority.NORMAL)
    tags = forms.CharField(
        required=False, max_length=1000, help_text=gettext_lazy("Comma-separated.")
    )
    assign_to_self = forms.BooleanField(
        required=False, label=gettext_lazy("Keep it: assign it to me")
    )

    def __init__(self, *args: Any, queues: Iterable[Queue], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        queue_field = self.fields["queue"]
        assert isinstance(queue_field, forms.TypedChoiceField)
        queue_field.choices = [(q.pk, q.name) for q in queues]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not (data.get("customer_message", "").strip() or data.get("internal_note", "").strip()):
            self.add_error(
                "customer_message", "Write the customer's words, an internal note, or both."
            )
        has_details = any(
            data.get(f) for f in ("customer_name", "customer_email", "customer_external_id")
        )
        if not data.get("customer_id") and not has_details and not self.has_error("customer_email"):
            self.add_error(
                "customer_name", "Pick a customer or give a name, an email or an external id."
            )
        return data

    def tag_list(self) -> list[str]:
        return [t for t in self.cleaned_data["tags"].split(",") if t.strip()]


class DutyForm(forms.Form):
    operator = forms.IntegerField(min_value=1)
    on_duty = forms.ChoiceField(choices=[("1", "on duty"), ("0", "off duty")])


SLA_CLOCKS = (
    ("first_response", "First response"),
    ("next_response", "Next response"),
    ("resolution", "Resolution"),
)


class QueueForm(forms.Form):
    """Create or edit a queue. SLA targets: per priority, the three clocks in minutes, all
    three or none (none = the defaults in tickets.sla)."""

    name = forms.CharField(max_length=100)
    slug = forms.SlugField(
        max_length=50, help_text=gettext_lazy("Used by the escalation API (queue).")
    )
    description = forms.CharField(required=False, max_length=300)
    capacity_per_operator = forms.IntegerField(
        min_value=1,
        max_value=500,
        initial=10,
        label=gettext_lazy("Capacity per operator"),
        help_text=gettext_lazy("Active tickets a member holds before routing passes them over."),
    )
    members = forms.TypedMultipleChoiceField(
        coerce=int, required=False, choices=[], widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, candidates: Iterable[Operator], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        members = self.fields["members"]
        assert isinstance(members, forms.TypedMultipleChoiceField)
        members.choices = [(op.pk, str(op)) for op in candidates]
        for priority, _label in Priority.choices:
            for clock, clock_label in SLA_CLOCKS:
                self.fields[f"sla_{priority}_{clock}"] = forms.IntegerField(
                    required=False,
                    min_value=1,
                    max_value=60 * 24 * 365,
                    label=gettext("%(clock_label)s (%(priority)s), minutes")
                    % {"clock_label": clock_label, "priority": priority},
                )

    def sla_rows(self) -> list[dict[str, Any]]:
        """For the template: one row per priority with its three bound fields and defaults."""
        return [
            {
                "priority": priority,
                "label": label,
                "fields": [self[f"sla_{priority}_{clock}"] for clock, _ in SLA_CLOCKS],
                "defaults": dataclasses.astuple(sla.DEFAULT_TARGETS[priority]),
            }
            for priority, label in Priority.choices
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for priority, label in Priority.choices:
            values = [data.get(f"sla_{priority}_{clock}") for clock, _ in SLA_CLOCKS]
            given = [v for v in values if v is not None]
            if given and len(given) != len(values):
                self.add_error(
                    f"sla_{priority}_first_response",
                    gettext("%(priority)s: give all three targets, or none to use the defaults.")
                    % {"priority": label},
                )
        return data

    def targets(self) -> dict[str, sla.Targets | None]:
        out: dict[str, sla.Targets | None] = {}
        for priority, _label in Priority.choices:
            values = [self.cleaned_data.get(f"sla_{priority}_{clock}") for clock, _ in SLA_CLOCKS]
            minutes = [int(v) for v in values if v is not None]
            out[priority] = sla.Targets(*minutes) if len(minutes) == len(SLA_CLOCKS) else None
        return out

    @staticmethod
    def initial_for(queue: Queue) -> dict[str, Any]:
        initial: dict[str, Any] = {
            "name": queue.name,
            "slug": queue.slug,
            "description": queue.description,
            "capacity_per_operator": queue.capacity_per_operator,
            "members": [m.operator_id for m in queue.memberships.all()],
        }
        for row in queue.sla_targets.all():
            initial[f"sla_{row.priority}_first_response"] = row.first_response_minutes
            initial[f"sla_{row.priority}_next_response"] = row.next_response_minutes
            initial[f"sla_{row.priority}_resolution"] = row.resolution_minutes
        return initial
