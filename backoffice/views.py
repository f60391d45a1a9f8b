from __future__ import annotations

from pathlib import Path

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from backoffice import dashboard

# Browsers ask for /favicon.ico on their own, on every page, before and after login. It is
# served here, publicly: were it behind login, the request would be redirected to the login
# steps — and a redirect into first-login enrolment used to replace the secret on screen.
FAVICON = (Path(__file__).resolve().parent / "static" / "favicon.ico").read_bytes()


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"panels": dashboard.panels_for(request.user)})


@require_GET
@cache_control(public=True, max_age=86400)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(FAVICON, content_type="image/x-icon")
