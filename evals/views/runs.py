"""The runs list, starting a run from a suite, and importing an engine run from a file."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from backoffice.errors import DomainError
from backoffice.request_operator import request_operator
from evals import access, selectors, services
from evals.services.imports import MAX_BYTES, eval_run_import
from evals.views.forms import StartRunForm
from evals.views.shared import require

PAGE_SIZE = 25


def _run_list_page(
    request: HttpRequest, form: StartRunForm | None = None, status: int = 200
) -> HttpResponse:
    page = Paginator(selectors.run_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    can_start = access.can_start_runs(request.user)
    return render(
        request,
        "evals/run_list.html",
        {
            "page": page,
            "can_start": can_start,
            "form": (form or StartRunForm()) if can_start else None,
            "selftest": selectors.selftest_latest(),
        },
        status=status,
    )


@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    require(access.can_view_runs(request.user))
    return _run_list_page(request)


@require_POST
def run_start(request: HttpRequest) -> HttpResponse:
    require(access.can_view_runs(request.user))
    if not access.can_start_runs(request.user):
        raise Http404
    form = StartRunForm(request.POST)
    if not form.is_valid() or form.resolved is None:
        # The form again, with what is wrong beside the field it is about.
        return _run_list_page(request, form, status=400)
    try:
        run = services.eval_run_start_background(
            actor=request_operator(request), suite=form.resolved
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("evals:run_list")
    messages.success(
        request,
        gettext("Run #%(pk)s started (%(total_units)s trials).")
        % {"pk": run.pk, "total_units": run.total_units},
    )
    return redirect("evals:run_detail", run.pk)


@require_POST
def run_import(request: HttpRequest) -> HttpResponse:
    """A release manager's upload of a JSON-lines run of `python -m evals.engine run`: a
    completed run to read in the trial viewer, or the line that is wrong and nothing kept."""
    require(access.can_view_runs(request.user) and access.can_start_runs(request.user))
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, gettext("Choose a .jsonl file written by the engine to import."))
        return redirect("evals:run_list")
    if upload.size is not None and upload.size > MAX_BYTES:
        messages.error(
            request,
            gettext("%(file)s is larger than %(mb)d MB; import it with `golive import`.")
            % {"file": upload.name, "mb": MAX_BYTES // (1024 * 1024)},
        )
        return redirect("evals:run_list")
    try:
        run = eval_run_import(actor=request_operator(request), name=upload.name or "", lines=upload)
    except DomainError as exc:
        messages.error(request, f"{upload.name}: {exc.message}")
        return redirect("evals:run_list")
    messages.success(
        request,
        gettext("Imported %(n)d trials from %(file)s as run #%(pk)s.")
        % {"n": run.total_units, "file": upload.name, "pk": run.pk},
    )
    return redirect("evals:run_detail", run.pk)
