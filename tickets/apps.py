from typing import Any

from django.apps import AppConfig
from django.db.backends.signals import connection_created

SCOPES = {
    "escalations:create": "Escalate a conversation to a human operator (POST /api/v1/escalations)",
    "tickets:read": "Read the tickets this principal escalated",
    "tickets:write": "Relay new customer messages to the tickets this principal escalated",
}


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "Ticket inbox"

    def ready(self) -> None:
        from backoffice import dashboard
        from identity import scopes
        from tickets.audit_kinds import register_audit_kinds
        from tickets.panels import inbox_panel

        register_audit_kinds()
        for name, description in SCOPES.items():
            scopes.register(name, description)
        dashboard.register("tickets.inbox", inbox_panel)
        connection_created.connect(_register_sqlite_functions, dispatch_uid="tickets.search")


def _register_sqlite_functions(sender: Any, connection: Any, **kwargs: Any) -> None:
    """SQLite's search triggers (migration 0009) call tickets_cjk_bigrams() in Python."""
    if connection.vendor == "sqlite":
        from tickets.search import cjk_bigrams

        connection.connection.create_function(
            "tickets_cjk_bigrams", 1, cjk_bigrams, deterministic=True
        )
