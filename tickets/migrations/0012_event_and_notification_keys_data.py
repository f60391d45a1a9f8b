"""Timeline entries, notification titles and escalation subjects written before they had
keys: give each row whose stored English this recognises its key and parameters, so it reads
in the reader's language. A row is converted only when its stored text is exactly what the
key's English (frozen below, as it was written) gives for the parameters read back from it
and from the row's before/after values; any other row keeps its text, shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.conf import settings
from django.db import migrations
from django.utils import translation

Params = dict[str, Any]
Found = tuple[str, Params]

# The English each key was written with, frozen: a later change of the catalogue's English
# must not change what this migration recognises.
EVENT_ENGLISH: dict[str, Callable[[Params], str]] = {
    "customer_wrote": lambda p: "Customer wrote",
    "replied": lambda p: "Replied to the customer",
    "note_added": lambda p: "Added an internal note",
    "note_edited": lambda p: "Edited an internal note",
    "sla_paused": lambda p: "SLA paused",
    "sla_resumed": lambda p: "SLA resumed",
    "sla_recalculated": lambda p: "SLA targets recalculated for the new priority",
    "merged_into": lambda p: f"Merged into #{p['ticket']}",
    "merged_from": lambda p: f"Ticket #{p['ticket']} merged into this one",
    "kept_by_opener": lambda p: f"Kept by {p['name']}, who opened it",
    "routed": lambda p: f"Routed to {p['name']}",
    "sla_breached": lambda p: f"SLA breached (due {p['due']} UTC)",
    "sla_near_breach": lambda p: f"SLA near breach (due {p['due']} UTC)",
}
VERBS = {
    "assigned": "Assigned to",
    "reassigned": "Reassigned to",
    "taken": "Taken by",
    "owned_by_creator": "Owned by its creator,",
}
STATUSES = {"new", "open", "pending_customer", "on_hold", "escalated", "resolved", "closed"}
PRIORITIES = {"low", "normal", "high", "urgent"}


FIXED = (
    "customer_wrote",
    "replied",
    "note_added",
    "note_edited",
    "sla_paused",
    "sla_resumed",
    "sla_recalculated",
)


def _fixed(summary: str) -> Found | None:
    return next(((key, {}) for key in FIXED if summary == EVENT_ENGLISH[key]({})), None)


def _matched(summary: str) -> Found | None:
    patterns = (
        ("merged_into", r"Merged into #(?P<ticket>\d+)"),
        ("merged_from", r"Ticket #(?P<ticket>\d+) merged into this one"),
        ("kept_by_opener", r"Kept by (?P<name>.+), who opened it"),
        ("routed", r"Routed to (?P<name>.+)"),
        ("sla_breached", r"SLA breached \(due (?P<due>[\d: -]+) UTC\)"),
        ("sla_near_breach", r"SLA near breach \(due (?P<due>[\d: -]+) UTC\)"),
    )
    for key, pattern in patterns:
        match = re.fullmatch(pattern, summary)
        if match:
            params: Params = dict(match.groupdict())
            if "ticket" in params:
                params["ticket"] = int(params["ticket"])
            return key, params
    return None


def _changed(summary: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> Found | None:
    """Entries whose parameters are codes: read from the row's before/after values."""
    old, new = before.get("status"), after.get("status")
    if old in STATUSES and new in STATUSES and re.fullmatch(r"Status .+ → .+", summary):
        return "status", {"old": old, "new": new}
    old, new = before.get("priority"), after.get("priority")
    if old in PRIORITIES and new in PRIORITIES and re.fullmatch(r"Priority .+ → .+", summary):
        return "priority", {"old": old, "new": new}
    match = re.fullmatch(r"Created in (?P<queue>.+) with priority .+", summary)
    if match and after.get("priority") in PRIORITIES:
        return "created", {"queue": match["queue"], "priority": after["priority"]}
    return None


def _assigned(summary: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> Found | None:
    name, previous = after.get("assignee_name"), before.get("assignee_name")
    if not name:
        return None
    for key, verb in VERBS.items():
        if summary == f"{verb} {name}" + (f" (was {previous})" if previous else ""):
            return (f"{key}_was", {"name": name, "previous": previous}) if previous else (
                key,
                {"name": name},
            )
    return None


def _tags(summary: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> Found | None:
    old, new = before.get("tags"), after.get("tags")
    if not isinstance(old, list) or not isinstance(new, list):
        return None
    added, removed = sorted(set(new) - set(old)), sorted(set(old) - set(new))
    parts = ([f"added {', '.join(added)}"] if added else []) + (
        [f"removed {', '.join(removed)}"] if removed else []
    )
    if not parts or summary != "Tags: " + "; ".join(parts):
        return None
    key = "tags_changed" if added and removed else "tags_added" if added else "tags_removed"
    return key, {"added": added, "removed": removed}


def recognise_event(summary: str, before: Any, after: Any) -> Found | None:
    """(key, params) for a legacy timeline summary, or None when it is not recognised."""
    before = before if isinstance(before, dict) else {}
    after = after if isinstance(after, dict) else {}
    return (
        _fixed(summary)
        or _matched(summary)
        or _changed(summary, before, after)
        or _assigned(summary, before, after)
        or _tags(summary, before, after)
    )


def recognise_notification(title: str, body: str) -> tuple[str, Params, str] | None:
    """(key, params, body) for a legacy notification title (an SLA notification's due time
    moves from its body to its title), or None."""
    match = re.fullmatch(r"(?P<actor>.+) assigned ticket #(?P<ticket>\d+) to you", title)
    if match:
        return "assigned_to_you", {"actor": match["actor"], "ticket": int(match["ticket"])}, body
    match = re.fullmatch(r"Ticket #(?P<ticket>\d+) assigned to you", title)
    if match:
        return "routed_to_you", {"ticket": int(match["ticket"])}, body
    match = re.fullmatch(r"(?P<actor>.+) mentioned you on ticket #(?P<ticket>\d+)", title)
    if match:
        return "mentioned_you", {"actor": match["actor"], "ticket": int(match["ticket"])}, body
    match = re.fullmatch(
        r"Refund #(?P<refund>\d+) of (?P<amount>.+) (?P<verb>approved|rejected) by (?P<actor>.+)",
        title,
    )
    if match:
        params = {"refund": int(match["refund"]), "amount": match["amount"], "actor": match["actor"]}
        return f"refund.{match['verb']}", params, body
    match = re.fullmatch(r"SLA (?P<what>breached|near breach): ticket #(?P<ticket>\d+)", title)
    due = re.fullmatch(r"(?P<subject>.*)\nDue (?P<due>[\d: -]+) UTC\.", body, re.DOTALL)
    if match and due:
        key = "sla_breached" if match["what"] == "breached" else "sla_near_breach"
        return key, {"ticket": int(match["ticket"]), "due": due["due"]}, due["subject"]
    return None


NOTIFICATION_ENGLISH: dict[str, Callable[[Params], str]] = {
    "assigned_to_you": lambda p: f"{p['actor']} assigned ticket #{p['ticket']} to you",
    "routed_to_you": lambda p: f"Ticket #{p['ticket']} assigned to you",
    "mentioned_you": lambda p: f"{p['actor']} mentioned you on ticket #{p['ticket']}",
    "sla_breached": lambda p: f"SLA breached: ticket #{p['ticket']} (due {p['due']} UTC)",
    "sla_near_breach": lambda p: f"SLA near breach: ticket #{p['ticket']} (due {p['due']} UTC)",
    # payments' decisions (payments_sandbox.phrases), on the inbox's notification rows
    "refund.approved": lambda p: f"Refund #{p['refund']} of {p['amount']} approved by {p['actor']}",
    "refund.rejected": lambda p: f"Refund #{p['refund']} of {p['amount']} rejected by {p['actor']}",
}


def event_english(key: str, params: Params) -> str:
    if key in EVENT_ENGLISH:
        return EVENT_ENGLISH[key](params)
    if key in ("status", "priority", "created"):
        return ""  # worded from labels: recognised by structure and codes, not re-rendered
    if key.startswith("tags_"):
        parts = ([f"added {', '.join(params['added'])}"] if params["added"] else []) + (
            [f"removed {', '.join(params['removed'])}"] if params["removed"] else []
        )
        return "Tags: " + "; ".join(parts)
    verb = VERBS[key.removesuffix("_was")]
    was = f" (was {params['previous']})" if key.endswith("_was") else ""
    return f"{verb} {params['name']}{was}"


def _batches(rows: Iterable[Any], size: int = 500) -> Iterable[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def events_forward(apps: Any, schema_editor: Any) -> None:
    TicketEvent = apps.get_model("tickets", "TicketEvent")
    legacy = TicketEvent.objects.filter(summary_key="").only("summary", "before", "after")
    for batch in _batches(legacy.iterator(chunk_size=500)):
        changed = []
        for row in batch:
            found = recognise_event(row.summary, row.before, row.after)
            if found is None:
                continue
            key, params = found
            english = event_english(key, params)
            if english and english != row.summary:
                continue
            row.summary_key, row.summary_params = key, params
            changed.append(row)
        TicketEvent.objects.bulk_update(changed, ["summary_key", "summary_params"])


def notifications_forward(apps: Any, schema_editor: Any) -> None:
    Notification = apps.get_model("tickets", "Notification")
    legacy = Notification.objects.filter(title_key="").only("title", "body")
    for batch in _batches(legacy.iterator(chunk_size=500)):
        changed = []
        for row in batch:
            found = recognise_notification(row.title, row.body)
            if found is None:
                continue
            row.title_key, row.title_params, row.body = found
            row.title = NOTIFICATION_ENGLISH[row.title_key](row.title_params)[:200]
            changed.append(row)
        Notification.objects.bulk_update(changed, ["title", "title_key", "title_params", "body"])


def category_labels() -> set[str]:
    """How the escalation categories were worded in every language a request could use."""
    from tickets.models import EscalationCategory

    labels = set()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            labels.update(str(label) for label in EscalationCategory.labels)
    return labels


def subjects_forward(apps: Any, schema_editor: Any) -> None:
    """An escalation's subject was "<category label>: <summary>", the label in the language
    of the agent's API request: it becomes the summary (the category shows beside it)."""
    Escalation = apps.get_model("tickets", "Escalation")
    Ticket = apps.get_model("tickets", "Ticket")
    labels = category_labels()
    rows = Escalation.objects.select_related("ticket").only("summary", "ticket__subject")
    for escalation in rows.iterator(chunk_size=500):
        subject, summary = escalation.ticket.subject, escalation.summary.strip()
        label, sep, _rest = subject.partition(": ")
        if sep and label in labels and subject == f"{label}: {summary}"[:300]:
            Ticket.objects.filter(pk=escalation.ticket_id).update(subject=summary[:300])


class Migration(migrations.Migration):
    dependencies = [("tickets", "0011_event_and_notification_keys")]

    operations = [
        migrations.RunPython(events_forward, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(notifications_forward, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(subjects_forward, migrations.RunPython.noop, elidable=True),
    ]
