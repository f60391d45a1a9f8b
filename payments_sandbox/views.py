"""The operator UI: approvals queue (with each rehearsal), payments, refunds, reconciliation.
Server-rendered pages calling the same services and selectors as the API; a DomainError
becomes a message on the page."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from backoffice.errors import DomainError
from backoffice.request_operator import request_operator
from identity.stepup import stepup_required
from payments_sandbox import access, selectors, services
from payments_sandbox.domain import refundable
from payments_sandbox.models import PaymentStatus, PredictedOutcome, RefundStatus
from payments_sandbox.modes import LIVE, current_mode
from tickets import access as ticket_access

PAGE_SIZE = 25


def _render(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    """Every payments page knows the mode it shows: the banner, the page's colour and the
    wording of approvals (never "sandbox" in live mode) follow it."""
    return render(request, template, {**context, "payments_live": current_mode() == LIVE})


def _require(allowed: bool) -> None:
    # 404, not 403: the pages' existence is not advertised to operators without the role.
    if not allowed:
        raise Http404


@require_GET
def approvals(request: HttpRequest) -> HttpResponse:
    _require(access.can_view_refunds(request.user))
    queue = selectors.refund_approval_queue()
    return _render(
        request,
        "payments_sandbox/approvals.html",
        {"refunds": queue[:200], "can_approve": access.can_approve_refund(request.user)},
    )


@require_GET
def payment_list(request: HttpRequest) -> HttpResponse:
    _require(access.can_view_payments(request.user))
    status = request.GET.get("status", "")
    search = request.GET.get("q", "").strip()
    payments = selectors.payment_list(
        status=status if status in PaymentStatus.values else "", search=search
    )
    page = Paginator(payments, PAGE_SIZE).get_page(request.GET.get("page"))
    return _render(
        request,
        "payments_sandbox/payment_list.html",
        {"page": page, "status": status, "search": search, "statuses": PaymentStatus.choices},
    )


@require_GET
def refund_list(request: HttpRequest) -> HttpResponse:
    """Every refund of this mode, newest first, filtered by state like Stripe's list (all,
    needs approval, in progress, succeeded, failed, rejected or cancelled)."""
    _require(access.can_view_refunds(request.user))
    state = request.GET.get("state", "all")
    if state not in selectors.REFUND_FILTERS:
        state = "all"
    search = request.GET.get("q", "").strip()
    refunds = selectors.refund_list_filtered(state=state, search=search)
    page = Paginator(refunds, PAGE_SIZE).get_page(request.GET.get("page"))
    counts = selectors.refund_counts_by_filter()
    labels = {
        "all": gettext("All"),
        "needs_approval": gettext("Needs approval"),
        "in_progress": gettext("In progress"),
        "succeeded": gettext("Succeeded"),
        "failed": gettext("Failed"),
        "rejected": gettext("Rejected or cancelled"),
    }
    return _render(
        request,
        "payments_sandbox/refund_list.html",
        {
            "page": page,
            "state": state,
            "search": search,
            "filters": [(name, labels[name], counts[name]) for name in selectors.REFUND_FILTERS],
        },
    )


@require_GET
def payment_detail(request: HttpRequest, payment_id: int) -> HttpResponse:
    _require(access.can_view_payments(request.user))
    try:
        payment = selectors.payment_get(payment_id=payment_id)
    except DomainError as exc:
        raise Http404 from exc
    return _render(
        request,
        "payments_sandbox/payment_detail.html",
        {
            "payment": payment,
            "refundable": refundable(selectors.refundable_facts(payment)),
            "refunds": selectors.refund_list(payment_id=payment.pk),
            "timeline": selectors.payment_timeline(payment=payment),
            "can_request": access.can_request_refund(request.user)
            and not access.is_service(request.user),
        },
    )


@require_POST
def refund_request(request: HttpRequest, payment_id: int) -> HttpResponse:
    _require(access.can_view_payments(request.user))
    try:
        refund = services.refund_request(
            actor=request_operator(request),
            payment_id=payment_id,
            amount=request.POST.get("amount", ""),
            reason=request.POST.get("reason", ""),
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("payments_sandbox:payment_detail", payment_id=payment_id)
    messages.success(
        request,
        gettext("Refund #%(pk)s requested; it now waits for an approver.") % {"pk": refund.pk},
    )
    return redirect("payments_sandbox:refund_detail", refund_id=refund.pk)


@require_GET
def refund_detail(request: HttpRequest, refund_id: int) -> HttpResponse:
    _require(access.can_view_refunds(request.user))
    try:
        refund = selectors.refund_get(refund_id=refund_id)
    except DomainError as exc:
        raise Http404 from exc
    user = request.user
    pending = refund.status == RefundStatus.PENDING_APPROVAL
    ticket = refund.ticket
    escalation = getattr(ticket, "escalation", None) if ticket is not None else None
    return _render(
        request,
        "payments_sandbox/refund_detail.html",
        {
            "refund": refund,
            "can_decide": pending
            and access.can_approve_refund(user)
            and refund.requested_by_id != user.pk,
            "own_request": refund.requested_by_id == user.pk,
            # The ticket (and the AI agent's conversation in it) behind the request: a link
            # when the viewer may open that ticket, its number otherwise.
            "ticket": ticket,
            "ticket_visible": ticket is not None
            and ticket_access.can_view(request_operator(request), ticket),
            "conversation_id": escalation.conversation_id if escalation is not None else "",
            "predicted_decline": refund.predicted_outcome == PredictedOutcome.DECLINE,
            "can_cancel": refund.status
            in (RefundStatus.REQUESTED, RefundStatus.REHEARSED, RefundStatus.PENDING_APPROVAL)
            and access.can_cancel_refund(user, refund),
        },
    )


def _decision(request: HttpRequest, refund_id: int, *, approve: bool) -> HttpResponse:
    _require(access.can_view_refunds(request.user))
    reason = request.POST.get("reason", "")
    try:
        if approve:
            services.refund_approve(
                actor=request_operator(request), refund_id=refund_id, reason=reason
            )
            messages.success(
                request,
                gettext("Refund #%(refund_id)s approved; it is being executed.")
                % {"refund_id": refund_id},
            )
        else:
            services.refund_reject(
                actor=request_operator(request), refund_id=refund_id, reason=reason
            )
            messages.success(
                request, gettext("Refund #%(refund_id)s rejected.") % {"refund_id": refund_id}
            )
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("payments_sandbox:refund_detail", refund_id=refund_id)


@require_POST
@stepup_required
def refund_approve(request: HttpRequest, refund_id: int) -> HttpResponse:
    return _decision(request, refund_id, approve=True)


@require_POST
@stepup_required
def refund_reject(request: HttpRequest, refund_id: int) -> HttpResponse:
    return _decision(request, refund_id, approve=False)


@require_POST
def refund_cancel(request: HttpRequest, refund_id: int) -> HttpResponse:
    _require(access.can_view_refunds(request.user))
    try:
        services.refund_cancel(
            actor=request_operator(request),
            refund_id=refund_id,
            reason=request.POST.get("reason", ""),
        )
        messages.success(
            request, gettext("Refund #%(refund_id)s cancelled.") % {"refund_id": refund_id}
        )
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("payments_sandbox:refund_detail", refund_id=refund_id)


@require_GET
def reconciliation(request: HttpRequest) -> HttpResponse:
    _require(access.can_view_reconciliation(request.user))
    reports = selectors.reconciliation_report_list()[:20]
    report_id = request.GET.get("report", "")
    report = None
    if report_id.isdigit():
        try:
            report = selectors.reconciliation_report_get(report_id=int(report_id))
        except DomainError as exc:
            raise Http404 from exc
    elif reports:
        report = reports[0]
    today = dt.date.today()
    return _render(
        request,
        "payments_sandbox/reconciliation.html",
        {
            "reports": reports,
            "report": report,
            "items": selectors.reconciliation_items(report=report) if report else [],
            "can_resolve": access.can_resolve_reconciliation(request.user),
            "default_from": today - dt.timedelta(days=7),
            "default_to": today,
        },
    )


@require_POST
def reconciliation_run(request: HttpRequest) -> HttpResponse:
    _require(access.can_view_reconciliation(request.user))
    try:
        report = services.reconcile_run(
            actor=request_operator(request),
            date_from=dt.date.fromisoformat(request.POST.get("date_from", "")),
            date_to=dt.date.fromisoformat(request.POST.get("date_to", "")),
        )
    except ValueError:
        messages.error(request, gettext("Give both dates as YYYY-MM-DD."))
        return redirect("payments_sandbox:reconciliation")
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("payments_sandbox:reconciliation")
    count = report.items.count()
    messages.success(
        request,
        gettext("Reconciliation compared %(compared)s refunds: %(count)s mismatches.")
        % {"compared": report.compared, "count": count},
    )
    return redirect(f"{reverse('payments_sandbox:reconciliation')}?report={report.pk}")


@require_POST
def reconciliation_resolve(request: HttpRequest, item_id: int) -> HttpResponse:
    _require(access.can_view_reconciliation(request.user))
    try:
        item = services.reconciliation_item_resolve(
            actor=request_operator(request), item_id=item_id, note=request.POST.get("note", "")
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("payments_sandbox:reconciliation")
    messages.success(request, gettext("Mismatch resolved."))
    return redirect(f"{reverse('payments_sandbox:reconciliation')}?report={item.report_id}")
