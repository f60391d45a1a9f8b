"""Opening a ticket on a customer's behalf: the new-ticket page and its customer picker."""

from __future__ import annotations

from django import forms as django_forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods

from backoffice.errors import DomainError
from tickets import forms, selectors
from tickets.models import Customer
from tickets.services.intake import ticket_open_for_customer
from tickets.views.guards import inbox_user


def apply_errors(form: django_forms.Form, error: DomainError) -> None:
    """Put a service's field errors on the form's fields (the rest on the form itself)."""
    for field, problems in error.fields.items():
        for problem in problems:
            form.add_error(field if field in form.fields else None, problem)
    if not error.fields:
        form.add_error(None, error.message)


@require_http_methods(["GET", "POST"])
def ticket_new(request: HttpRequest) -> HttpResponse:
    operator = inbox_user(request)
    queues = list(selectors.queue_list_for(operator=operator))
    form = forms.TicketOpenForm(request.POST or None, queues=queues)
    picked: Customer | None = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            ticket = ticket_open_for_customer(
                actor=operator,
                subject=data["subject"],
                queue_id=data["queue"],
                priority=data["priority"],
                channel=data["channel"],
                tags=form.tag_list(),
                customer_id=data.get("customer_id"),
                customer_name=data["customer_name"],
                customer_email=data["customer_email"],
                customer_external_id=data["customer_external_id"],
                customer_message=data["customer_message"],
                internal_note=data["internal_note"],
                assign_to_self=data["assign_to_self"],
            )
        except DomainError as error:
            apply_errors(form, error)
        else:
            owner = (
                f"assigned to {ticket.assignee}"
                if ticket.assignee_id
                else "waiting unrouted: nobody in the queue is on duty with capacity"
            )
            messages.success(
                request,
                gettext("Ticket #%(pk)s opened, %(owner)s.") % {"pk": ticket.pk, "owner": owner},
            )
            return redirect(reverse("tickets:detail", args=[ticket.pk]))
    # Re-rendered with errors: keep the customer the operator picked, or the matches of
    # what they had typed, so nothing has to be searched again.
    matches: list[Customer] = []
    query = str(form.data.get("customer_q", "")).strip() if form.is_bound else ""
    if form.is_bound:
        raw_id = str(form.data.get("customer_id", ""))
        if raw_id.isdigit():
            picked = selectors.customer_get(customer_id=int(raw_id))
        if picked is None and query:
            matches = selectors.customer_search(query=query)
    return render(
        request,
        "tickets/ticket_new.html",
        {
            "form": form,
            "picked": picked,
            "matches": matches,
            "customer_q": query,
            "has_queues": bool(queues),
        },
        status=400 if form.is_bound else 200,
    )


@require_GET
def customer_lookup(request: HttpRequest) -> HttpResponse:
    """The picker's htmx fragment: customers matching what the operator typed."""
    inbox_user(request)
    query = request.GET.get("customer_q", "").strip()
    return render(
        request,
        "tickets/_customer_matches.html",
        {"customers": selectors.customer_search(query=query), "query": query},
    )
