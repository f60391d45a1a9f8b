"""Identity's part of `seed_demo`: the AI agent runtime's service principal and its token."""

from __future__ import annotations

from identity import scopes
from identity.models import ApiToken, Operator, OperatorKind
from identity.services import api_token_create, operator_create

AGENT_RUNTIME = "agent-runtime"


def seed(*, operators: dict[str, Operator]) -> list[str]:
    principal = Operator.objects.filter(username=AGENT_RUNTIME).first()
    if principal is None:
        principal, _ = operator_create(
            actor=None,
            username=AGENT_RUNTIME,
            display_name="AI agent runtime",
            kind=OperatorKind.SERVICE,
        )
    operators[AGENT_RUNTIME] = principal
    if ApiToken.objects.filter(operator=principal, revoked_at__isnull=True).exists():
        return [
            f"Service principal {AGENT_RUNTIME}: API token already issued (tokens are shown "
            "once; revoke it and create a new one under Tokens to see a new one)."
        ]
    granted = list(scopes.known())
    if not granted:
        return [f"Service principal {AGENT_RUNTIME}: no API scopes are registered; no token."]
    _, raw = api_token_create(actor=None, principal=principal, name="demo", scopes=granted)
    return [
        f"Service principal {AGENT_RUNTIME}: new API token (shown once, keep it):",
        f"  {raw}",
        f"  scopes: {', '.join(granted)}",
    ]
