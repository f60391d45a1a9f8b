"""The inbox page: a tab of tickets with its filters, search and sort, and what its toolbar
posts (bulk changes, going on and off duty)."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from backoffice.context import landing_url
from backoffice.errors import DomainError
from backoffice.pagination import CappedCountPaginator
from backoffice.params import query_id_or_none
from backoffice.request_operator import request_operator
from tickets import access, forms, selectors, services
from tickets import search as ticket_search
from tickets.models import (
    ACTIVE_STATUSES,
    Priority,
    Status,
)
from tickets.services.queues import can_manage_queues
from tickets.views.guards import inbox_user, safe_next

PAGE_SIZE = 25


def _filters(request: HttpRequest) -> tuple[selectors.InboxFilters, dict[str, str]]:
    get = request.GET
    raw = {
        key: get.get(key, "").strip() for key in ("status", "priority", "queue", "tag", "assignee")
    }

    filters = selectors.InboxFilters(
        status=(raw["status"],) if raw["status"] in Status.values else (),
        priority=(raw["priority"],) if raw["priority"] in Priority.values else (),
        queue_id=query_id_or_none(raw["queue"]),
        tag=raw["tag"],
        assignee_id=query_id_or_none(raw["assignee"]),
        unassigned=raw["assignee"] == "none",
    )
    return filters, raw


@require_GET
def inbox(request: HttpRequest) -> HttpResponse:
    operator = request_operator(request)
    if not access.can_use_inbox(operator):
        # An approver, auditor or admin who types the address (or follows an old link) is
        # sent to their own work, told why, rather than shown a bare 404.
        messages.info(
            request,
            gettext("Your role has no inbox of tickets; this is where your work is."),
        )
        return redirect(landing_url(operator))
    views = selectors.views_for(operator)
    view = request.GET.get("view", "mine")
    if view not in views:
        view = "mine"
    filters, raw = _filters(request)
    search = request.GET.get("q", "").strip()
    sort = request.GET.get("sort", "newest")
    number = ticket_search.ticket_number(search)
    if number is not None and selectors.ticket_visible(operator=operator, ticket_id=number):
        return redirect(reverse("tickets:detail", args=[number]))
    # A search looks through every ticket the operator may see, in any status, whichever
    # tab it was typed in; the other filters still apply.
    tickets = selectors.ticket_list_for_inbox(
        operator=operator,
        view=selectors.SEARCH_VIEW if search else view,
        filters=filters,
        search=search,
        sort=sort,
    )
    # A search's count stops at a cap and reads "1,000+" beyond it (see CappedCountPaginator).
    paginator_class = CappedCountPaginator if search else Paginator
    page = paginator_class(tickets, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    base_query = {k: v for k, v in query.items() if isinstance(v, str) and v}
    availability = selectors.availability_of(operator=operator)
    return render(
        request,
        "tickets/inbox.html",
        {
            "views": views,
            "view": view,
            "page": page,
            "filters": raw,
            "search": search,
            "searching": bool(search),
            "sort": sort,
            "sorts": selectors.SORT_LABELS,
            "statuses": Status.choices,
            "priorities": Priority.choices,
            "queues": selectors.queue_list_for(operator=operator),
            "assignees": selectors.assignable_operators(operator=operator),
            "page_query": urlencode(base_query),
            "view_query": urlencode({k: v for k, v in base_query.items() if k != "view"}),
            "on_duty": bool(availability and availability.on_duty),
            "unread": selectors.notification_unread_count(operator=operator),
            "active_statuses": ACTIVE_STATUSES,
            "can_manage_queues": can_manage_queues(operator),
        },
    )


@require_POST
def bulk(request: HttpRequest) -> HttpResponse:
    operator = inbox_user(request)
    form = forms.BulkForm(request.POST)
    back = safe_next(request, reverse("tickets:inbox"))
    if not form.is_valid():
        for problems in form.errors.values():
            for problem in problems:
                messages.error(
                    request, gettext("Nothing changed: %(problem)s") % {"problem": problem}
                )
        return redirect(back)
    try:
        result = services.ticket_bulk_update(
            actor=operator,
            items=forms.parse_selection(request.POST.getlist("t")),
            action=form.cleaned_data["action"],
            value=form.value(),
        )
    except DomainError as error:
        messages.error(request, error.message)
        return redirect(back)
    if result.updated:
        messages.success(
            request, gettext("Updated %(count)s ticket(s).") % {"count": len(result.updated)}
        )
    for ticket_id, reason in result.skipped.items():
        messages.warning(
            request,
            gettext("#%(ticket_id)s skipped: %(reason)s")
            % {"ticket_id": ticket_id, "reason": reason},
        )
    return redirect(back)


@require_POST
def duty(request: HttpRequest) -> HttpResponse:
    operator = inbox_user(request)
    on_duty = request.POST.get("on_duty") == "1"
    routed = services.operator_duty_set(actor=operator, on_duty=on_duty)
    if on_duty:
        mine = [r for r in routed if r.operator_id == operator.pk]
        messages.success(
            request,
            gettext("You are on duty. %(count)s waiting ticket(s) routed to you.")
            % {"count": len(mine)},
        )
    else:
        messages.success(
            request, gettext("You are off duty; new tickets will not be routed to you.")
        )
    return redirect(reverse("tickets:inbox"))
