from django.apps import AppConfig


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = "Ticket inbox"

    def ready(self) -> None:
        from backoffice import dashboard
        from tickets.panels import inbox_panel

        dashboard.register("tickets.inbox", inbox_panel)
