"""The API schema's view of errors: every operation documents the error responses it can
give, in the one JSON error shape (backoffice.errors), unless the view already declared them.

- 400 everywhere: bad query parameters, a NUL byte, an id past 64 bits, malformed JSON;
- 401 and 403 everywhere: no or wrong credentials, a role or scope that does not allow it;
- 404 where the path names an object, where a write's body names one (a payment, an
  assignee), and on lists (a page past the last: `?page=999`);
- 409 and 422 for writes: a stale view or a state that forbids it, a rule the input breaks.

Lists: every list this API answers (a GET declared with a `many=True` serializer) is a page
of backoffice.pagination.StandardPagination, `{"count", "next", "previous", "results"}`; the
views are plain APIViews that paginate by hand, so the schema is told here, and a test calls
every list endpoint to hold the rule.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from backoffice.pagination import StandardPagination

ERROR = inline_serializer(
    "ApiError",
    {
        "error": inline_serializer(
            "ApiErrorBody",
            {
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(
                    child=serializers.ListField(child=serializers.CharField()), required=False
                ),
            },
        )
    },
)
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")


class AutoSchema(SpectacularAutoSchema):
    def _get_paginator(self) -> Any:
        paginator = super()._get_paginator()
        if paginator is None and self.method == "GET":
            return StandardPagination()
        return paginator

    def error_codes(self) -> list[str]:
        codes = ["400", "401", "403"]
        if "{" in self.path or self.method in WRITE_METHODS or self._is_list_view():
            codes.append("404")
        if self.method in WRITE_METHODS:
            codes += ["409", "422"]
        return codes

    def _get_response_bodies(self, direction: Any = "response") -> Any:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self.error_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(ERROR, code, direction=direction)
        return responses
