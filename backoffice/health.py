"""The liveness probe a load balancer or orchestrator asks: public, answered before login."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


@never_cache
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Public liveness probe with a database round trip; says nothing else about the app."""
    try:
        with connection.cursor() as cursor:
            # A round trip and nothing else: the ORM has no statement that touches no table.
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        return JsonResponse({"status": "error"}, status=503)
    return JsonResponse({"status": "ok"})
