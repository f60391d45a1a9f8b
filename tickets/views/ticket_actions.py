"""What the ticket page posts: a reply, a note, assignment, status, priority, tags and a merge.

Each calls the same service as the API. Domain errors become a message on the page; a stale
submission re-renders the ticket with the operator's draft kept and the reason shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from backoffice.errors import Conflict, DomainError, NotFound
from backoffice.request_operator import request_operator
from tickets import forms, selectors, services
from tickets.models import (
    Priority,
    Status,
)
from tickets.views.guards import inbox_user
from tickets.views.ticket import detail_context


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
        context = detail_context(request, ticket_id, **extra)
        return render(request, "tickets/ticket_detail.html", context, status=409)
    except DomainError as error:
        if draft_field:
            # Refused text (a mention of nobody, a reply to a simulated customer) comes back
            # in its box with the reason, so nothing typed is lost.
            context = detail_context(
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
        return gettext("Reply sent to the customer.")

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
        return gettext("Internal note added.")

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
        return gettext("Note updated; the previous text is kept in its history.")

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
        return gettext("Assigned to %(operator)s.") % {"operator": ticket.assignee}

    return _act(request, ticket_id, forms.AssignForm, run)


@require_POST
def take(request: HttpRequest, ticket_id: int) -> HttpResponse:
    def run(form: forms.VersionedForm) -> str:
        services.ticket_take(
            actor=request_operator(request),
            ticket_id=ticket_id,
            expected_version=form.cleaned_data["version"],
        )
        return gettext("You own this ticket now.")

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
        return gettext("Status set to %(status)s.") % {
            "status": Status(form.cleaned_data["status"]).label
        }

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
        return gettext("Priority set to %(priority)s.") % {
            "priority": Priority(form.cleaned_data["priority"]).label
        }

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
        return gettext("Tags saved.")

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
