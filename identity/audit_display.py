"""How the audit trail reads to a person: for each event, the object it concerns (named, and
linked when the viewer may open it), and what changed — the fields whose value differs
between `before` and `after`, money in major units with its currency.

Every app writes audit events about its own objects, so each app says how its objects read:
it registers a `TargetKind` per target type in its AppConfig.ready(). Identity never imports
the apps above it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext

from identity import access
from identity.models import AuditEvent, Operator

Link = tuple[str, str]  # (label, url or "" when the viewer may not open it)


@dataclass(frozen=True)
class TargetKind:
    # target_id -> how a person names the object ("Refund #8").
    label: Callable[[str], str]
    # (target_id, viewer) -> its page, or "" when the viewer may not open it.
    url: Callable[[str, Any], str] = lambda target_id, user: ""
    # Fields holding minor units of the event's `currency`, and how to show them.
    money_fields: frozenset[str] = frozenset()
    money: Callable[[int, str], str] | None = None
    # Fields naming another object: field -> (value, viewer) -> link.
    field_links: dict[str, Callable[[Any, Any], Link]] = field(default_factory=dict)
    # Fields holding a code (a status, a mode): field -> {code: its label}, the label worded
    # in the reader's language when shown (a TextChoices' `dict(Status.choices)`).
    field_choices: dict[str, Mapping[str, Any]] = field(default_factory=dict)


_kinds: dict[str, TargetKind] = {}


def register(target_type: str, kind: TargetKind) -> None:
    if target_type in _kinds and _kinds[target_type] is not kind:
        raise ValueError(f"An audit target kind {target_type!r} is already registered.")
    _kinds[target_type] = kind


@dataclass(frozen=True)
class Change:
    field: str
    before: str | None  # None: the event created the object (no "before")
    after: str
    after_url: str = ""
    # The stored code behind a value shown by its label ("" when the value is shown as
    # stored): auditors read the code in the value's tooltip.
    before_code: str = ""
    after_code: str = ""


@dataclass(frozen=True)
class EventView:
    event: AuditEvent
    target: str
    target_url: str
    history_url: str
    changes: list[Change]


def _plain(value: Any) -> str:
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _code(kind: TargetKind | None, name: str, value: Any) -> str:
    """The stored code when the value reads as a label of the field's choices, else ""."""
    if kind is None or not isinstance(value, str) or value not in kind.field_choices.get(name, {}):
        return ""
    return value


def _value(kind: TargetKind | None, name: str, value: Any, currency: str, user: Any) -> Link:
    if kind is not None:
        if _code(kind, name, value):
            return str(kind.field_choices[name][value]), ""
        if name in kind.money_fields and kind.money and currency and isinstance(value, int):
            return kind.money(value, currency), ""
        if name in kind.field_links and value not in (None, ""):
            return kind.field_links[name](value, user)
    return _plain(value), ""


def changes(event: AuditEvent, user: Any) -> list[Change]:
    """The fields that changed, in the order the event lists them. An event with no `before`
    created (or did) something: its `after` fields that hold a value."""
    kind = _kinds.get(event.target_type)
    before = event.before if isinstance(event.before, dict) else {}
    after = event.after if isinstance(event.after, dict) else {}
    currency = str(after.get("currency") or before.get("currency") or "")
    out: list[Change] = []
    if not before:
        for name, value in after.items():
            if value in (None, "", [], {}):
                continue
            shown, url = _value(kind, name, value, currency, user)
            out.append(Change(name, None, shown, url, after_code=_code(kind, name, value)))
        return out
    for name in [*after, *(k for k in before if k not in after)]:
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        old_shown, _ = _value(kind, name, old, currency, user)
        new_shown, url = _value(kind, name, new, currency, user)
        out.append(
            Change(
                name,
                old_shown,
                new_shown,
                url,
                before_code=_code(kind, name, old),
                after_code=_code(kind, name, new),
            )
        )
    return out


def history_url(event: AuditEvent) -> str:
    if not event.target_type or not event.target_id:
        return ""
    query = urlencode({"target_type": event.target_type, "target_id": event.target_id})
    return f"{reverse('identity:audit_list')}?{query}"


def describe(event: AuditEvent, user: Any) -> EventView:
    kind = _kinds.get(event.target_type)
    if kind is not None and event.target_id:
        target, url = kind.label(event.target_id), kind.url(event.target_id, user)
    else:
        target = f"{event.target_type}:{event.target_id}" if event.target_id else event.target_type
        url = ""
    return EventView(event, target, url, history_url(event), changes(event, user))


def operator_link(value: Any, user: Any) -> Link:
    """A field holding an operator's id (decided_by, assignee...): their name, linked for
    admins."""
    if not str(value).isdigit():
        return _plain(value), ""
    operator = Operator.objects.filter(pk=int(value)).first()
    name = str(operator) if operator is not None else gettext("Operator #%(pk)s") % {"pk": value}
    return name, _operator_url(str(value), user)


def _operator_url(target_id: str, user: Any) -> str:
    if not access.can_manage_operators(user) or not target_id.isdigit():
        return ""
    return reverse("identity:operator_detail", args=[int(target_id)])


register(
    "identity.operator",
    TargetKind(label=lambda pk: gettext("Operator #%(pk)s") % {"pk": pk}, url=_operator_url),
)
register(
    "identity.apitoken", TargetKind(label=lambda pk: gettext("API token #%(pk)s") % {"pk": pk})
)
