from django.apps import AppConfig


class EvalsConfig(AppConfig):
    name = "evals"
    verbose_name = "Go-live acceptance suites"

    def ready(self) -> None:
        from backoffice import dashboard
        from evals import access
        from evals.views.panels import golive_panel
        from identity import scopes

        for name, description in access.SCOPES.items():
            scopes.register(name, description)
        dashboard.register("evals.golive", golive_panel)
