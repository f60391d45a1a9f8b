"""How the API's two ways in appear in the OpenAPI schema (security schemes), so clients
and schema-driven testers know to send a bearer token or a verified session."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "identity.authentication.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "bo_<prefix>_<secret>",
            "description": "A service principal's API token (scopes decide what it may do).",
        }


class VerifiedSessionScheme(OpenApiAuthenticationExtension):
    target_class = "identity.authentication.VerifiedSessionAuthentication"
    name = "verifiedSession"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": "An operator's session after password and one-time code; unsafe "
            "methods also need the CSRF token.",
        }
