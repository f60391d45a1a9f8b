"""HTML form parsing for the inbox pages (the API has its own serializers)."""

from __future__ import annotations

from django import forms

from tickets.models import Priority, Status
from tickets.services.workflow import BULK_ACTIONS


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
    action = forms.ChoiceField(choices=[(a, a) for a in BULK_ACTIONS])
    assignee = forms.CharField(required=False)
    status = forms.CharField(required=False)
    priority = forms.CharField(required=False)
    tag = forms.CharField(required=False, max_length=50)

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
