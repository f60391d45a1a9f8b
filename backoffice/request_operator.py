"""Typed access to the operator behind a request, for Django views and DRF views alike.

`request.user` is typed `Operator | AnonymousUser`; every view that acts for someone runs
behind the verified-session middleware or a DRF authentication + permission check, so by the
time it asks, the user is an authenticated Operator. This is the one place that narrows the
type, and it fails closed (403) instead of trusting that the guard ran.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from rest_framework.request import Request

from identity.models import Operator


def request_operator(request: HttpRequest | Request) -> Operator:
    """The authenticated operator (human or service principal) making this request.

    Raises Django's PermissionDenied otherwise: Django renders it as 403 and the API's
    exception handler as the 403 JSON error shape.
    """
    user = request.user
    if not isinstance(user, Operator) or not user.is_authenticated:
        raise PermissionDenied("An authenticated operator is required.")
    return user
