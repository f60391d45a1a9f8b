"""Message bodies on the ticket page."""

from __future__ import annotations

import json
import re

from django import template
from django.urls import Resolver404, resolve
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from tickets.models import NotificationKind

register = template.Library()

# A site-relative path standing on its own ("Source: /evals/runs/3/trials/17/"), not the
# tail of a URL or of another path.
_PATH = re.compile(r"(?<![\w/.:])(/[A-Za-z0-9_\-./]*[A-Za-z0-9_\-/])")


def _link(match: re.Match[str]) -> str:
    path = match.group(1)
    try:
        resolve(path)
    except Resolver404:
        return path
    return str(format_html('<a href="{}">{}</a>', path, path))


@register.filter
def linked_paths(text: str) -> SafeString:
    """The text escaped, line breaks kept, and each path of a page of this site a link:
    what a system message says it came from can be opened in one click."""
    linked = _PATH.sub(_link, str(escape(text))).replace("\n", "<br>")
    return mark_safe(linked)  # noqa: S308 - escaped text, links built by format_html


# Kinds other apps send (tickets.notifications.notify takes any dotted kind); the inbox's own
# are NotificationKind's labels.
_OTHER_KINDS = {
    "refund.approved": _("Refund approved"),
    "refund.rejected": _("Refund rejected"),
}


@register.filter
def notification_kind(kind: str) -> str:
    """A notification's kind in words ("SLA breached", "Refund approved"), never its code."""
    if kind in NotificationKind.values:
        return str(NotificationKind(kind).label)
    if kind in _OTHER_KINDS:
        return str(_OTHER_KINDS[kind])
    return kind.replace(".", " ").replace("_", " ").capitalize()


@register.filter
def pretty_json(value: object) -> str:
    """A tool call's arguments or result as indented JSON (text stays text)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
