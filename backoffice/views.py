from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from backoffice import dashboard


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"panels": dashboard.panels_for(request.user)})
