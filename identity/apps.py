from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


def _sync_roles(sender: AppConfig, **kwargs: object) -> None:
    from identity.roles import sync_roles

    sync_roles()


class IdentityConfig(AppConfig):
    name = "identity"
    verbose_name = "Operators and audit trail"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_logged_out

        from backoffice import dashboard
        from identity import panels, schema, signals  # noqa: F401 - schema registers itself

        # post_migrate is sent once per app, and auth creates each app's permissions in its
        # own handler; syncing on the last app's signal means every permission exists.
        last_app = list(apps.get_app_configs())[-1]
        post_migrate.connect(_sync_roles, sender=last_app, dispatch_uid="identity.sync_roles")
        user_logged_in.connect(signals.record_session, dispatch_uid="identity.record_session")
        user_logged_out.connect(signals.forget_session, dispatch_uid="identity.forget_session")
        dashboard.register("identity.security", panels.security_panel)
        dashboard.register("identity.operators", panels.operators_panel)
        dashboard.register("identity.audit", panels.audit_panel)
