"""Queue administration (supervisors and admins: tickets.manage_queues): the queues with
their members and figures, creating a queue and editing one. Saving asks for a recent
second factor: membership and capacity decide who receives which customer's tickets."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from backoffice.errors import DomainError
from backoffice.request_operator import request_operator
from identity.models import Operator
from identity.stepup import stepup_required
from tickets import access, forms, selectors
from tickets.models import Queue
from tickets.services import operator_duty_set
from tickets.services.queues import can_manage_queues, queue_create, queue_update
from tickets.views.intake import apply_errors


def manager_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """403 unless the operator may manage queues; checked before step-up, so nobody is
    asked for a code for a page they could never use."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_manage_queues(request_operator(request)):
            raise PermissionDenied("Managing queues is reserved to supervisors and admins.")
        return view(request, *args, **kwargs)

    return wrapper


@require_GET
@manager_required
def queue_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "tickets/queue_list.html",
        {
            "queues": selectors.queue_list_for_admin(),
            # Putting someone else on or off duty is a supervisor's call (operator_duty_set).
            "can_set_duty": access.can_reassign(request_operator(request)),
            # Admins manage queues without an inbox: figures, but no links into tickets.
            "links_to_inbox": access.sees_all(request_operator(request)),
        },
    )


@require_POST
@manager_required
def member_duty(request: HttpRequest) -> HttpResponse:
    """A supervisor puts a member on or off duty from the queue list (someone went home
    sick, someone came in early); going on duty routes their queues' waiting tickets."""
    form = forms.DutyForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Choose an operator and on or off duty."))
        return redirect(reverse("tickets:queue_list"))
    on_duty = form.cleaned_data["on_duty"] == "1"
    try:
        routed = operator_duty_set(
            actor=request_operator(request),
            operator_id=form.cleaned_data["operator"],
            on_duty=on_duty,
        )
    except DomainError as error:
        messages.error(request, error.message)
    else:
        name = selectors.operator_label(operator_id=form.cleaned_data["operator"])
        if on_duty:
            messages.success(
                request,
                gettext("%(name)s is on duty; %(count)s waiting ticket(s) routed.")
                % {"name": name, "count": len(routed)},
            )
        else:
            messages.success(
                request,
                gettext("%(name)s is off duty and keeps the tickets they own.") % {"name": name},
            )
    return redirect(reverse("tickets:queue_list"))


def _form_page(
    request: HttpRequest, form: forms.QueueForm, queue: Queue | None, status: int = 200
) -> HttpResponse:
    return render(request, "tickets/queue_form.html", {"form": form, "queue": queue}, status=status)


def _candidates(queue: Queue | None) -> list[Operator]:
    """Who may work tickets, plus current members who no longer may (so they stay visible
    and can be removed)."""
    candidates = selectors.queue_member_candidates()
    if queue is not None:
        known = {op.pk for op in candidates}
        candidates += [m.operator for m in queue.memberships.all() if m.operator_id not in known]
    return candidates


@require_http_methods(["GET", "POST"])
@manager_required
@stepup_required
def queue_new(request: HttpRequest) -> HttpResponse:
    form = forms.QueueForm(request.POST or None, candidates=_candidates(None))
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                queue = queue_create(
                    actor=request_operator(request),
                    name=data["name"],
                    slug=data["slug"],
                    description=data["description"],
                    capacity_per_operator=data["capacity_per_operator"],
                    member_ids=data["members"],
                    targets={p: t for p, t in form.targets().items() if t is not None},
                )
            except DomainError as error:
                apply_errors(form, error)
            else:
                messages.success(request, gettext("Queue %(name)s created.") % {"name": queue.name})
                return redirect(reverse("tickets:queue_list"))
        return _form_page(request, form, None, status=400)
    return _form_page(request, form, None)


@require_http_methods(["GET", "POST"])
@manager_required
@stepup_required
def queue_edit(request: HttpRequest, queue_id: int) -> HttpResponse:
    queue = selectors.queue_get_for_admin(queue_id=queue_id)
    if queue is None:
        raise Http404("No such queue.")
    if request.method != "POST":
        form = forms.QueueForm(
            initial=forms.QueueForm.initial_for(queue), candidates=_candidates(queue)
        )
        return _form_page(request, form, queue)
    form = forms.QueueForm(request.POST, candidates=_candidates(queue))
    if form.is_valid():
        data = form.cleaned_data
        try:
            change = queue_update(
                actor=request_operator(request),
                queue_id=queue.pk,
                name=data["name"],
                slug=data["slug"],
                description=data["description"],
                capacity_per_operator=data["capacity_per_operator"],
                member_ids=data["members"],
                targets=form.targets(),
            )
        except DomainError as error:
            apply_errors(form, error)
        else:
            if not change.changed:
                messages.info(
                    request, gettext("Nothing changed in %(name)s.") % {"name": change.queue.name}
                )
            else:
                routed = f" {len(change.routed)} waiting ticket(s) routed." if change.routed else ""
                messages.success(
                    request,
                    gettext("Queue %(name)s saved.%(routed)s")
                    % {"name": change.queue.name, "routed": routed},
                )
            return redirect(reverse("tickets:queue_list"))
    return _form_page(request, form, queue, status=400)
