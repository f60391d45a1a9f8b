from django.apps import AppConfig

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
        from tickets.panels import inbox_panel

        for name, description in SCOPES.items():
            scopes.register(name, description)
        dashboard.register("tickets.inbox", inbox_panel)
