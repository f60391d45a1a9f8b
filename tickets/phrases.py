"""The words of what the inbox stores for people to read later: timeline entries and
notification titles. Rows store a key from these catalogues and its parameters; the words are
chosen when a row is shown, in the reader's language (see backoffice.phrases).

Parameters are data (names, ticket numbers, dates in UTC) or codes worded here (a status or a
priority code -> its label). A key, once written to rows, keeps its meaning and parameters:
change its English freely, never what it takes.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from backoffice.phrases import Catalogue, Phrase, render, render_english
from tickets.models.tickets import Priority, Status


def _status(code: Any) -> str:
    return str(Status(code).label) if code in Status.values else str(code)


def _priority(code: Any) -> str:
    return str(Priority(code).label) if code in Priority.values else str(code)


def _names(values: Any) -> str:
    return ", ".join(str(v) for v in values) if isinstance(values, list) else str(values)


STATUS = {"old": _status, "new": _status}

EVENTS: Catalogue = {
    "created": Phrase(
        _("Created in %(queue)s with priority %(priority)s"), {"priority": _priority}
    ),
    "customer_wrote": Phrase(_("Customer wrote")),
    "replied": Phrase(_("Replied to the customer")),
    "note_added": Phrase(_("Added an internal note")),
    "note_edited": Phrase(_("Edited an internal note")),
    "status": Phrase(_("Status %(old)s → %(new)s"), STATUS),
    "priority": Phrase(_("Priority %(old)s → %(new)s"), {"old": _priority, "new": _priority}),
    "assigned": Phrase(_("Assigned to %(name)s")),
    "assigned_was": Phrase(_("Assigned to %(name)s (was %(previous)s)")),
    "reassigned": Phrase(_("Reassigned to %(name)s")),
    "reassigned_was": Phrase(_("Reassigned to %(name)s (was %(previous)s)")),
    "taken": Phrase(_("Taken by %(name)s")),
    "taken_was": Phrase(_("Taken by %(name)s (was %(previous)s)")),
    "owned_by_creator": Phrase(_("Owned by its creator, %(name)s")),
    "owned_by_creator_was": Phrase(_("Owned by its creator, %(name)s (was %(previous)s)")),
    "kept_by_opener": Phrase(_("Kept by %(name)s, who opened it")),
    "routed": Phrase(_("Routed to %(name)s")),
    "merged_into": Phrase(_("Merged into #%(ticket)s")),
    "merged_from": Phrase(_("Ticket #%(ticket)s merged into this one")),
    "sla_paused": Phrase(_("SLA paused")),
    "sla_resumed": Phrase(_("SLA resumed")),
    "sla_recalculated": Phrase(_("SLA targets recalculated for the new priority")),
    "sla_breached": Phrase(_("SLA breached (due %(due)s UTC)")),
    "sla_near_breach": Phrase(_("SLA near breach (due %(due)s UTC)")),
    "tags_added": Phrase(_("Tags: added %(added)s"), {"added": _names}),
    "tags_removed": Phrase(_("Tags: removed %(removed)s"), {"removed": _names}),
    "tags_changed": Phrase(
        _("Tags: added %(added)s; removed %(removed)s"), {"added": _names, "removed": _names}
    ),
}

NOTIFICATIONS: dict[str, Phrase] = {
    "assigned_to_you": Phrase(_("%(actor)s assigned ticket #%(ticket)s to you")),
    "routed_to_you": Phrase(_("Ticket #%(ticket)s assigned to you")),
    "mentioned_you": Phrase(_("%(actor)s mentioned you on ticket #%(ticket)s")),
    "sla_breached": Phrase(_("SLA breached: ticket #%(ticket)s (due %(due)s UTC)")),
    "sla_near_breach": Phrase(_("SLA near breach: ticket #%(ticket)s (due %(due)s UTC)")),
}


def register_notification_phrases(phrases: Catalogue) -> None:
    """Another app's notification titles (its dotted kinds), registered in its
    AppConfig.ready(); a key is registered once."""
    for key, phrase in phrases.items():
        if NOTIFICATIONS.get(key, phrase) is not phrase:
            raise ValueError(f"A notification phrase {key!r} is already registered.")
    NOTIFICATIONS.update(phrases)


# Who did it when no operator did: the stored label is a fixed English name.
ACTORS = {
    "System": pgettext_lazy("timeline actor", "System"),
    "Routing": pgettext_lazy("timeline actor", "Routing"),
    "SLA": pgettext_lazy("timeline actor", "SLA"),
}


def event_english(key: str, params: dict[str, Any]) -> str:
    """A timeline entry's English copy (the row's `summary`: API readers, logs, legacy)."""
    return render_english(EVENTS, key, params)


def event_words(key: str, params: dict[str, Any], legacy: str) -> str:
    return render(EVENTS, key, params, legacy)


def notification_english(key: str, params: dict[str, Any]) -> str:
    return render_english(NOTIFICATIONS, key, params)


def notification_words(key: str, params: dict[str, Any], legacy: str) -> str:
    return render(NOTIFICATIONS, key, params, legacy)


def actor_words(label: str) -> str:
    return str(ACTORS[label]) if label in ACTORS else label


__all__ = [
    "EVENTS",
    "NOTIFICATIONS",
    "actor_words",
    "event_english",
    "event_words",
    "notification_english",
    "notification_words",
    "register_notification_phrases",
]
