"""The header's notifications link, on every page of an operator who works tickets."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from identity import otp
from tickets import access, selectors


def notifications(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    if not otp.session_verified(user) or not access.can_use_inbox(user):  # type: ignore[arg-type]
        return {}
    return {
        "header_notifications": {
            "unread": selectors.notification_unread_count(operator=user),  # type: ignore[arg-type]
            "url": reverse("tickets:notifications"),
        }
    }
