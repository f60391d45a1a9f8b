"""The auditor's view of the trail: filters, pages, CSV export (streamed)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from identity.audit import CONTENT_FIELDS
from identity.audit_display import describe
from identity.forms import AuditFilterForm
from identity.selectors import AuditFilter, audit_event_list
from identity.views.common import auditor_required

PAGE_SIZE = 50
# Every hashed field, then the chain links, so an exported row can be checked offline.
CSV_COLUMNS = [*CONTENT_FIELDS, "prev_hash", "hash"]


def _filters(request: HttpRequest) -> tuple[AuditFilterForm, AuditFilter]:
    form = AuditFilterForm(request.GET or None)
    if form.is_bound and form.is_valid():
        return form, AuditFilter(
            **{k: v for k, v in form.cleaned_data.items() if v not in (None, "")}
        )
    return form, AuditFilter()


@require_GET
@auditor_required
def audit_list(request: HttpRequest) -> HttpResponse:
    form, filters = _filters(request)
    page = Paginator(audit_event_list(filters=filters), PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "identity/audit_list.html",
        {
            "form": form,
            "page": page,
            "rows": [describe(event, request.user) for event in page],
            "query": query.urlencode(),
        },
    )


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_value(value: object) -> object:
    text = json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else value
    # Cells starting with = + - @ (or a TAB or CR, after which spreadsheets read the rest)
    # are formulas to a spreadsheet; quote them as text.
    if isinstance(text, str) and text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + text
    return text


@require_GET
@auditor_required
def audit_export(request: HttpRequest) -> StreamingHttpResponse:
    _, filters = _filters(request)
    events = audit_event_list(filters=filters).values_list(*CSV_COLUMNS)
    writer = csv.writer(_Echo())

    def rows() -> Iterator[str]:
        yield writer.writerow(CSV_COLUMNS)
        for row in events.iterator(chunk_size=2000):
            yield writer.writerow([_csv_value(v) for v in row])

    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="audit-{stamp}.csv"'
    return response
