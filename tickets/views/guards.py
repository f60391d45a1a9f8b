"""Who may use the inbox pages, and where a form may send the operator back to."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme

from backoffice.request_operator import request_operator
from identity.models import Operator
from tickets import access


def inbox_user(request: HttpRequest) -> Operator:
    operator = request_operator(request)
    if not access.can_use_inbox(operator):
        raise Http404("No inbox for you.")
    return operator


def safe_next(request: HttpRequest, default: str) -> str:
    """The posted `next` if it points back into this site ("//evil.example" does not)."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default
