"""What the go-live pages share: their refusals (a page the operator's roles do not open is a
404, its existence not advertised, as is a run that does not exist), a run's domains, and the
link to a run's trials narrowed by filters."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import reverse
from django.utils.http import urlencode

from backoffice.errors import DomainError
from evals import selectors


def require(allowed: bool) -> None:
    if not allowed:
        raise Http404


def run_or_404(run_id: int) -> Any:
    try:
        return selectors.run_get(run_id=run_id)
    except DomainError as exc:
        raise Http404 from exc


def trials_url(run_id: int, **filters: str) -> str:
    """The run's trial list narrowed by `filters` (evals.views.lists.FILTER_KEYS)."""
    url = reverse("evals:run_trial_list", args=[run_id])
    return f"{url}?{urlencode(filters)}" if filters else url


def run_domains(run: Any) -> list[str]:
    return [d["name"] for d in (run.suite_snapshot or {}).get("domains", [])]
