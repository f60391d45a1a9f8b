from django.apps import AppConfig


class PaymentsSandboxConfig(AppConfig):
    name = "payments_sandbox"
    verbose_name = "Payments and refunds"

    def ready(self) -> None:
        from backoffice import dashboard
        from identity import scopes
        from payments_sandbox import access, modes
        from payments_sandbox.audit_kinds import register_audit_kinds
        from payments_sandbox.panels import approvals_panel
        from payments_sandbox.phrases import NOTES, NOTIFICATIONS
        from tickets.phrases import register_note_phrases, register_notification_phrases

        # Refuse to start with an ambiguous payments mode (see payments_sandbox.modes).
        modes.check_configuration()
        register_audit_kinds()
        register_notification_phrases(NOTIFICATIONS)
        register_note_phrases(NOTES)
        for name, description in access.SCOPES.items():
            scopes.register(name, description)
        dashboard.register("payments.approvals", approvals_panel)
