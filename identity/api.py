"""Identity API: who am I (lets a service principal check its token and scopes)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.request_operator import request_operator
from identity.models import ApiToken


class WhoAmIOutput(serializers.Serializer):
    username = serializers.CharField()
    kind = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    scopes = serializers.ListField(child=serializers.CharField())


class WhoAmIView(APIView):
    @extend_schema(responses=WhoAmIOutput)
    def get(self, request: Request) -> Response:
        user = request_operator(request)
        token = request.auth if isinstance(request.auth, ApiToken) else None
        data = {
            "username": user.get_username(),
            "kind": user.kind,
            "roles": sorted(user.role_names()),
            "scopes": list(token.scopes) if token else [],
        }
        return Response(WhoAmIOutput(data).data)
