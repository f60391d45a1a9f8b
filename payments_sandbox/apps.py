from django.apps import AppConfig


class PaymentsSandboxConfig(AppConfig):
    name = "payments_sandbox"
