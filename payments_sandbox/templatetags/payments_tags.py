from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext

from payments_sandbox.domain import Money
from payments_sandbox.modes import LIVE, current_mode

register = template.Library()

_STATUS_CLASS = {
    "succeeded": "ok",
    "approved": "info",
    "processing": "info",
    "pending_approval": "warn",
    "failed": "bad",
    "rejected": "bad",
    "cancelled": "",
    "refunded": "ok",
    "partially_refunded": "info",
    "captured": "",
    "reversed": "bad",
    "decline": "bad",
    "timeout": "warn",
    "delayed": "warn",
    "succeed": "ok",
}


@register.filter
def minor(amount: int | None, currency: str) -> str:
    """{{ refund.refundable_after|minor:refund.currency }} -> "12.34 USD"."""
    if amount is None:
        return "—"
    return Money(int(amount), currency).format()


@register.filter
def status_class(status: str) -> str:
    return _STATUS_CLASS.get(str(status), "")


@register.filter
def prediction_note(refund: Any) -> str:
    """The rehearsal's note in the reader's language. Notes are stored in English (the
    sandbox marks its own with gettext_noop); one the catalogue does not know, such as a live
    provider's own text, is shown as stored."""
    note = getattr(refund, "prediction_note", "") or ""
    return gettext(note) if note else ""


@register.simple_tag
def payments_mode_class() -> str:
    """The page's colour: `payments-live` or `payments-sandbox` on <body>."""
    return f"payments-{current_mode()}"


@register.inclusion_tag("payments_sandbox/_mode_banner.html")
def payments_mode_banner() -> dict[str, Any]:
    return {"live": current_mode() == LIVE}
