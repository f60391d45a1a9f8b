"""One error type for the domain, one JSON shape for the API.

Services raise DomainError subclasses; api_exception_handler turns them (and DRF's own
errors) into

    {"error": {"code": "...", "message": "...", "fields": {"field": ["..."]}}}

with the status code the subclass declares. Views rendering HTML catch DomainError and show
`message` to the operator.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.utils.translation import gettext
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class DomainError(Exception):
    status_code = 400
    code = "invalid"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        fields: dict[str, list[str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.fields = fields or {}

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.fields:
            body["fields"] = self.fields
        return body


class ValidationFailed(DomainError):
    status_code = 400
    code = "validation_failed"


class NotFound(DomainError):
    status_code = 404
    code = "not_found"


class Forbidden(DomainError):
    status_code = 403
    code = "forbidden"


class Conflict(DomainError):
    """The request is valid but collides with the current state (stale view, in-flight
    duplicate, invalid state transition)."""

    status_code = 409
    code = "conflict"


class Unprocessable(DomainError):
    status_code = 422
    code = "unprocessable"


class StepUpRequired(DomainError):
    status_code = 403
    code = "step_up_required"


class PasswordChangeRequired(DomainError):
    """A session whose password is still the temporary one an admin chose."""

    status_code = 403
    code = "password_change_required"


def error_response(error: DomainError) -> Response:
    return Response({"error": error.as_dict()}, status=error.status_code)


def _flatten(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            if isinstance(value, dict):
                for sub, nested in _flatten(value).items():
                    out[f"{key}.{sub}"] = nested
            elif isinstance(value, list):
                msgs: list[str] = []
                for index, item in enumerate(value):
                    if isinstance(item, dict):
                        for sub, sub_msgs in _flatten(item).items():
                            out[f"{key}[{index}].{sub}"] = sub_msgs
                    else:
                        msgs.append(str(item))
                if msgs:
                    out[key] = msgs
            else:
                out[key] = [str(value)]
        return out
    if isinstance(detail, list):
        return {"non_field_errors": [str(item) for item in detail]}
    return {"non_field_errors": [str(detail)]}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return error_response(exc)
    if isinstance(exc, Http404):
        return error_response(NotFound(gettext("Not found.")))
    if isinstance(exc, DjangoPermissionDenied):
        return error_response(
            Forbidden(gettext("You do not have permission to perform this action."))
        )
    if isinstance(exc, drf_exceptions.ValidationError):
        return error_response(
            ValidationFailed(gettext("The request is not valid."), fields=_flatten(exc.detail))
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, drf_exceptions.APIException):
        detail = exc.detail
        message = str(detail) if not isinstance(detail, dict | list) else "Request failed."
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code
        response.data = {"error": {"code": str(code), "message": message}}
    return response
