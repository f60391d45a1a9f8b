"""What every operation of the inbox API shares: the one error shape it documents, and the
input validation that answers 400 in it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.request import Request

ERROR = inline_serializer(
    "Error",
    {
        "error": inline_serializer(
            "ErrorBody",
            {
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(required=False),
            },
        )
    },
)
WRITE_ERRORS = {400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR}


def valid_input(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
