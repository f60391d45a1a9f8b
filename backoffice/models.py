"""Models shared by every app: the idempotency records behind backoffice.idempotency."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy


class IdempotencyState(models.TextChoices):
    IN_FLIGHT = "in_flight", gettext_lazy("In flight")
    COMPLETED = "completed", gettext_lazy("Completed")


class IdempotencyRecord(models.Model):
    """One Idempotency-Key of one principal for one family of endpoints (`scope`).

    The row is inserted, committed, before the request is handled, so a concurrent duplicate
    collides with the unique constraint and is told to wait (409) instead of running twice.
    """

    principal = models.CharField(max_length=64)
    scope = models.CharField(max_length=64)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(
        max_length=16, choices=IdempotencyState.choices, default=IdempotencyState.IN_FLIGHT
    )
    # Identifies the request currently allowed to complete this record; a takeover of a stale
    # in-flight record replaces it, so the abandoned request cannot commit afterwards.
    owner = models.CharField(max_length=32)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["principal", "scope", "key"], name="idempotency_unique_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.scope}:{self.key} ({self.state})"
