"""The words of what the inbox stores for people to read later: timeline entries,
notification titles, the system notes of a ticket's conversation and a go-live finding's card.
Rows store a key from these catalogues and its parameters; the words are chosen when a row is
shown, in the reader's language (see backoffice.phrases).

Parameters are data (names, ticket numbers, dates in UTC) or codes worded here (a status or a
priority code -> its label). A key, once written to rows, keeps its meaning and parameters:
change its English freely, never what it takes.
"""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from backoffice.phrases import Catalogue, Phrase, render, render_english
from tickets.models.escalations import EscalationCategory
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


def _category(code: Any) -> str:
    return str(EscalationCategory(code).label) if code in EscalationCategory.values else str(code)


# A system note of a ticket's conversation (Message.body_key): written by the inbox's own
# services, or by another app through tickets.notifications.post_system_note.
NOTES: dict[str, Phrase] = {
    "merged": Phrase(
        _("%(actor)s merged ticket #%(ticket)s into this ticket (%(moved)s messages moved).")
    ),
    "tool_call": Phrase(_("Tool call: %(name)s(%(arguments)s)")),
    # The escalation card, repeated as a message by escalations before issue 15 item 8.
    "escalated": Phrase(
        _(
            "Escalated by the AI agent (%(category)s). Reason: %(reason)s\n"
            "Summary: %(summary)s\nCustomer wants: %(requested)s"
        ),
        {"category": _category},
    ),
}

# A finding's details: one line per state difference and per note, then its source page.
FINDING_LINES: dict[str, Phrase] = {
    "diff": Phrase(_("State diff: %(value)s")),
    "notes": Phrase(_("Note: %(value)s")),
    "source": Phrase(_("Source: %(value)s")),
}


def register_note_phrases(phrases: Catalogue) -> None:
    """Another app's system notes (its dotted keys), registered in its AppConfig.ready()."""
    for key, phrase in phrases.items():
        if NOTES.get(key, phrase) is not phrase:
            raise ValueError(f"A note phrase {key!r} is already registered.")
    NOTES.update(phrases)


def _finding_lines(params: dict[str, Any]) -> str:
    lines = [
        str(FINDING_LINES[name].text) % {"value": value}
        for name in ("diff", "notes")
        for value in params.get(name) or []
    ]
    if params.get("source"):
        lines.append(str(FINDING_LINES["source"].text) % {"value": params["source"]})
    return "\n".join(lines)


def note_words(key: str | None, params: dict[str, Any] | None, legacy: str) -> str:
    """A system note's text in the active language; a note without a key (or with one this
    version does not know) shows its stored body."""
    if key == "finding":
        return _finding_lines(params or {}) if isinstance(params, dict) else legacy
    return render(NOTES, key or "", params, legacy)


def note_english(key: str, params: dict[str, Any]) -> str:
    """A system note's English copy (the row's `body`: the API, search, legacy readers)."""
    with translation.override("en"):
        return note_words(key, params, "")


# A finding's card (Escalation.card_key "finding"): why the trial failed and what to do, from
# the trial's values; the reason, summary and requested action stored beside are its English.
FINDING_CARD: dict[str, Phrase] = {
    "reason": Phrase(_("Trial %(trial)s failed: %(failure)s, ended by %(termination)s.")),
    "summary": Phrase(
        _("Run #%(run)s (%(suite)s, agent %(agent)s); reward components: %(components)s."),
        {"components": lambda value: value or str(_("none"))},
    ),
    "requested_action": Phrase(_("Review the failing trial and decide what to fix.")),
}


def card_words(
    key: str | None, params: dict[str, Any] | None, legacy: dict[str, str]
) -> dict[str, str]:
    """An escalation card's reason, summary and requested action in the active language:
    a finding's from its parameters, an escalation's as the AI agent wrote them."""
    if key != "finding":
        return legacy
    return {name: render(FINDING_CARD, name, params, legacy[name]) for name in FINDING_CARD}


def card_english(key: str, params: dict[str, Any]) -> dict[str, str]:
    with translation.override("en"):
        return card_words(key, params, {name: "" for name in FINDING_CARD})


# Who did it when no operator did: the stored label is a fixed English name.
ACTORS = {
    "System": pgettext_lazy("timeline actor", "System"),
    "Routing": pgettext_lazy("timeline actor", "Routing"),
    "SLA": pgettext_lazy("timeline actor", "SLA"),
}

# Who wrote a message that no operator wrote (Message.author_label), when it is one of the
# fixed English names the services store; a customer's name is shown as it is.
AUTHORS = {
    "AI agent": pgettext_lazy("message author", "AI agent"),
    "System": pgettext_lazy("message author", "System"),
    "Go-live suite": pgettext_lazy("message author", "Go-live suite"),
    "Tool result": pgettext_lazy("message author", "Tool result"),
}
# The one customer of every go-live finding (tickets.services.findings), named by the
# backoffice, not by a person.
SIMULATED_CUSTOMER = "Go-live simulated customer"
SIMULATED_CUSTOMER_WORDS = pgettext_lazy("message author", "Go-live simulated customer")


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


def author_words(label: str, *, customer: bool = False) -> str:
    """A message author's label in the active language: a customer's name as it is (but for
    the simulated one), a service's fixed name worded."""
    if label == SIMULATED_CUSTOMER:
        return str(SIMULATED_CUSTOMER_WORDS)
    if customer:
        return label
    return str(AUTHORS[label]) if label in AUTHORS else label


__all__ = [
    "EVENTS",
    "FINDING_CARD",
    "NOTES",
    "NOTIFICATIONS",
    "actor_words",
    "author_words",
    "card_english",
    "card_words",
    "event_english",
    "event_words",
    "note_english",
    "note_words",
    "notification_english",
    "notification_words",
    "register_note_phrases",
    "register_notification_phrases",
]
