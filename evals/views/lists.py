"""The trials behind a figure: a run's trials narrowed by domain, task, persona, outcome and
failure class, and searched in their transcripts. The run page's failure classes and
domain x persona cells link here with the filters set."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from backoffice.errors import DomainError
from evals import access, selectors

PAGE_SIZE = 50
FILTER_KEYS = ("domain", "task", "persona", "outcome", "failure", "q")


@require_GET
def run_trial_list(request: HttpRequest, run_id: int) -> HttpResponse:
    if not access.can_view_runs(request.user):
        raise Http404
    try:
        run = selectors.run_get(run_id=run_id)
    except DomainError as exc:
        raise Http404 from exc
    values = {key: request.GET.get(key, "").strip()[:200] for key in FILTER_KEYS}
    filters = selectors.TrialFilters(**values)
    trials = selectors.run_trial_search(run_id=run.pk, filters=filters)
    page = Paginator(trials, PAGE_SIZE).get_page(request.GET.get("page"))
    query = urlencode({k: v for k, v in values.items() if v})
    return render(
        request,
        "evals/trial_list.html",
        {
            "run": run,
            "page": page,
            "filters": values,
            "facets": selectors.run_trial_facets(run_id=run.pk),
            "query": query,
            "filtered": any(values.values()),
        },
    )
