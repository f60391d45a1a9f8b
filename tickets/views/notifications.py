"""The notifications page: an operator's mentions and alerts, and marking them read."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from tickets import selectors, services
from tickets.views.guards import inbox_user, safe_next


@require_GET
def notifications(request: HttpRequest) -> HttpResponse:
    operator = inbox_user(request)
    unread_only = request.GET.get("unread") == "1"
    rows = selectors.notification_list(operator=operator, unread_only=unread_only)
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    return render(
        request,
        "tickets/notifications.html",
        {
            "page": page,
            "unread_only": unread_only,
            "unread": selectors.notification_unread_count(operator=operator),
        },
    )


@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    operator = inbox_user(request)
    ids = [int(v) for v in request.POST.getlist("id") if v.isdigit()]
    count = services.notifications_mark_read(actor=operator, notification_ids=ids or None)
    messages.success(request, gettext("Marked %(count)s notification(s) read.") % {"count": count})
    return redirect(safe_next(request, reverse("tickets:notifications")))
