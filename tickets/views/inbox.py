"""The operator UI of the inbox: server-rendered pages calling the same services and
selectors as the API. Domain errors become a message on the page; a stale submission
re-renders the ticket with the operator's draft kept and the reason shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from backoffice.context import landing_url
from backoffice.errors import Conflict, DomainError, NotFound
from backoffice.pagination import CappedCountPaginator
from backoffice.params import query_id_or_none
from backoffice.request_operator import request_operator
from identity.models import Operator
from payments_sandbox import access as payments_access
from payments_sandbox import selectors as payments_selectors
from tickets import access, forms, selectors, services
from tickets import search as ticket_search
from tickets.models import (
    ACTIVE_STATUSES,
    MessageKind,
    Priority,
    Status,
    Ticket,
    TicketEventKind,
)
from tickets.services.queues import can_manage_queues

PAGE_SIZE = 25


def inbox_user(request: HttpRequest) -> Operator:
    operator = request_operator(request)
    if not access.can_use_inbox(operator):
        raise Http404("No inbox for you.")
    return operator


def _safe_next(request: HttpRequest, default: str) -> str:
    """The posted `next` if it points back into this site ("//evil.example" does not)."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


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
    back = _safe_next(request, reverse("tickets:inbox"))
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


def _customer_payments(request: HttpRequest, ticket: Ticket) -> list[Any] | None:
    """The customer's payments and their refunds, read through payments' own selector (the
    inbox never writes them). None when the viewer may not see payments."""
    if not payments_access.can_view_payments(request.user):
        return None
    return payments_selectors.payments_for_customer(email=ticket.customer.email)


def _detail_context(request: HttpRequest, ticket_id: int, **extra: Any) -> dict[str, Any]:
    operator = request_operator(request)
    ticket = selectors.ticket_get_for_operator(operator=operator, ticket_id=ticket_id)
    timeline = list(ticket.events.all())
    return {
        "ticket": ticket,
        "conversation": list(ticket.messages.all()),
        "timeline": timeline,
        # A deadline that was missed stays on the page after the late reply met the clock.
        "sla_breaches": [
            event
            for event in timeline
            if event.kind == TicketEventKind.SLA and (event.after or {}).get("state") == "breached"
        ],
        "tags_text": ", ".join(tag.name for tag in ticket.tags.all()),
        "statuses": Status.choices,
        "priorities": Priority.choices,
        "assignees": selectors.assignable_operators(operator=operator, ticket=ticket),
        "can_take": access.can_take(operator, ticket),
        "can_reassign": access.can_reassign(operator),
        "can_merge": access.can_merge(operator),
        "can_work": not ticket.merged_into_id and ticket.status != Status.CLOSED,
        "can_reply_publicly": access.can_reply_publicly(ticket),
        "others": selectors.presence_others(ticket_id=ticket.pk, operator=operator),
        "next_ticket": selectors.ticket_next_for(operator=operator, after_id=ticket.pk),
        "related": selectors.merge_candidates(operator=operator, ticket=ticket),
        "customer_payments": _customer_payments(request, ticket),
        "kinds": MessageKind,
        "reply_draft": "",
        "note_draft": "",
        "conflict": "",
        **extra,
    }


def ticket_detail(request: HttpRequest, ticket_id: int) -> HttpResponse:
    operator = inbox_user(request)
    try:
        context = _detail_context(request, ticket_id)
    except NotFound as error:
        raise Http404(error.message) from error
    services.presence_touch(actor=operator, ticket_id=ticket_id)
    return render(request, "tickets/ticket_detail.html", context)


def _act(
    request: HttpRequest,
    ticket_id: int,
    form_class: type[forms.VersionedForm],
    action: Callable[[Any], str],
    *,
    draft_field: str = "",
) -> HttpResponse:
    """Validate the form, run the service, then redirect back to the ticket. A stale
    version re-renders the page (409) with the operator's draft kept."""
    inbox_user(request)
    form = form_class(request.POST)
    if not form.is_valid():
        errors = "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in form.errors.items())
        messages.error(request, gettext("Not saved: %(errors)s") % {"errors": errors})
        return redirect(reverse("tickets:detail", args=[ticket_id]))
    try:
        done = action(form)
    except NotFound as error:
        raise Http404(error.message) from error
    except Conflict as error:
        extra = {"conflict": error.message}
        if draft_field:
            extra[draft_field] = form.cleaned_data.get("body", "")
        context = _detail_context(request, ticket_id, **extra)
        return render(request, "tickets/ticket_detail.html", context, status=409)
    except DomainError as error:
        if draft_field:
            # Refused text (a mention of nobody, a reply to a simulated customer) comes back
            # in its box with the reason, so nothing typed is lost.
            context = _detail_context(
                request,
                ticket_id,
                conflict=error.message,
                **{draft_field: form.cleaned_data.get("body", "")},
            )
            return render(request, "tickets/ticket_detail.html", context, status=400)
        messages.error(request, error.message)
        return redirect(reverse("tickets:detail", args=[ticket_id]))
    if done:
        messages.success(request, done)
    return redirect(reverse("tickets:detail", args=[ticket_id]))


@require_POST
def reply(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.ReplyForm) -> str:
        services.ticket_reply(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=form.cleaned_data["body"],
            expected_version=form.cleaned_data["version"],
            status=form.cleaned_data.get("status", ""),
        )
        return "Reply sent to the customer."

    return _act(request, ticket_id, forms.ReplyForm, run, draft_field="reply_draft")


@require_POST
def note(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.NoteForm) -> str:
        services.ticket_note_add(
            actor=request_operator(request),
            ticket_id=ticket_id,
            body=form.cleaned_data["body"],
            expected_version=form.cleaned_data["version"],
        )
        return "Internal note added."

    return _act(request, ticket_id, forms.NoteForm, run, draft_field="note_draft")


@require_POST
def note_edit(request: HttpRequest, ticket_id: int, note_id: int) -> HttpResponse:
    def run(form: forms.NoteForm) -> str:
        services.ticket_note_edit(
            actor=request_operator(request),
            ticket_id=ticket_id,
            note_id=note_id,
            body=form.cleaned_data["body"],
            expected_version=form.cleaned_data["version"],
        )
        return "Note updated; the previous text is kept in its history."

    return _act(request, ticket_id, forms.NoteForm, run)


@require_POST
def assign(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.AssignForm) -> str:
        ticket = services.ticket_assign(
            actor=request_operator(request),
            ticket_id=ticket_id,
            assignee_id=form.cleaned_data["assignee"],
            expected_version=form.cleaned_data["version"],
        )
        return f"Assigned to {ticket.assignee}."

    return _act(request, ticket_id, forms.AssignForm, run)


@require_POST
def take(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.VersionedForm) -> str:
        services.ticket_take(
            actor=request_operator(request),
            ticket_id=ticket_id,
            expected_version=form.cleaned_data["version"],
        )
        return "You own this ticket now."

    return _act(request, ticket_id, forms.VersionedForm, run)


@require_POST
def status(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.StatusForm) -> str:
        services.ticket_status_set(
            actor=request_operator(request),
            ticket_id=ticket_id,
            status=form.cleaned_data["status"],
            expected_version=form.cleaned_data["version"],
        )
        return f"Status set to {Status(form.cleaned_data['status']).label}."

    return _act(request, ticket_id, forms.StatusForm, run)


@require_POST
def priority(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.PriorityForm) -> str:
        services.ticket_priority_set(
            actor=request_operator(request),
            ticket_id=ticket_id,
            priority=form.cleaned_data["priority"],
            expected_version=form.cleaned_data["version"],
        )
        return f"Priority set to {Priority(form.cleaned_data['priority']).label}."

    return _act(request, ticket_id, forms.PriorityForm, run)


@require_POST
def tags(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.TagsForm) -> str:
        services.ticket_tags_set(
            actor=request_operator(request),
            ticket_id=ticket_id,
            tags=form.tag_list(),
            expected_version=form.cleaned_data["version"],
        )
        return "Tags saved."

    return _act(request, ticket_id, forms.TagsForm, run)


@require_POST
def merge(request: HttpRequest, ticket_id: int) -> HttpResponse:
    operator = inbox_user(request)
    form = forms.MergeForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Give the number of the ticket to merge into."))
        return redirect(reverse("tickets:detail", args=[ticket_id]))
    target_id = form.cleaned_data["target"]
    # The operator saw the source; the target's version is the one current now unless the
    # form carried one (the merge is a deliberate, confirmed action on the target).
    target_version = form.cleaned_data.get("target_version") or selectors.ticket_versions(
        ticket_ids=[target_id]
    ).get(target_id)
    try:
        target = services.ticket_merge(
            actor=operator,
            source_id=ticket_id,
            target_id=target_id,
            expected_source_version=form.cleaned_data["version"],
            expected_target_version=target_version,
        )
    except NotFound as error:
        # As every other action on a ticket: one the operator may not see does not exist.
        raise Http404(error.message) from error
    except DomainError as error:
        messages.error(request, error.message)
        return redirect(reverse("tickets:detail", args=[ticket_id]))
    messages.success(
        request,
        gettext("Ticket #%(ticket_id)s merged into this ticket.") % {"ticket_id": ticket_id},
    )
    return redirect(reverse("tickets:detail", args=[target.pk]))


@require_GET
def presence(request: HttpRequest, ticket_id: int) -> HttpResponse:
    operator = inbox_user(request)
    try:
        others = services.presence_touch(actor=operator, ticket_id=ticket_id)
    except NotFound as error:
        raise Http404(error.message) from error
    return render(request, "tickets/_presence.html", {"others": others})


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
    return redirect(_safe_next(request, reverse("tickets:notifications")))
