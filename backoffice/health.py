"""The liveness probe a load balancer or orchestrator asks: public, answered before login."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


@never_cache
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Public liveness probe with a database round trip; says nothing else about the app."""
    try:
        # One cheap statement (`SELECT 1 … LIMIT 1`) on Django's own migrations table, which
        # every migrated database has: a round trip that reads no app data. A failure marks
        # the connection, so Django closes it after the response and the next probe
        # reconnects.
        MigrationRecorder(connection).migration_qs.exists()
    except Exception:
        return JsonResponse({"status": "error"}, status=503)
    return JsonResponse({"status": "ok"})
