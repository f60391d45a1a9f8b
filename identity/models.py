from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy


class Role(models.TextChoices):
    """Roles are auth Groups of these names; identity.roles maps each to its permissions."""

    # A human support agent, not the AI agent: its own context, so Chinese can tell them apart.
    AGENT = "agent", pgettext_lazy("operator role", "Agent")
    APPROVER = "approver", gettext_lazy("Approver")
    SUPERVISOR = "supervisor", gettext_lazy("Supervisor")
    ADMIN = "admin", gettext_lazy("Admin")
    AUDITOR = "auditor", gettext_lazy("Auditor")
    RELEASE_MANAGER = "release_manager", gettext_lazy("Release manager")


class OperatorKind(models.TextChoices):
    HUMAN = "human", gettext_lazy("Human operator")
    SERVICE = "service", gettext_lazy("Service principal")


class Operator(AbstractUser):
    """A person working in the backoffice, or a service principal (the AI agent's runtime,
    CI) that authenticates with API tokens only and never has a password or a session."""

    display_name = models.CharField(max_length=150, blank=True)
    kind = models.CharField(max_length=16, choices=OperatorKind.choices, default=OperatorKind.HUMAN)
    # The language chosen with the header switch ("" = follow the browser); applied on every
    # request by identity.middleware.OperatorLanguageMiddleware, so it follows the operator
    # from one browser to the next.
    language = models.CharField(max_length=16, blank=True, default="")
    # Set when someone else chose the password (the temporary one an admin is shown at
    # creation): until the operator sets their own, every page leads to the password form and
    # the API refuses their session (identity.middleware, identity.authentication).
    must_change_password = models.BooleanField(default=False)

    class Meta:
        ordering = ["username"]
        permissions = [("manage_operators", "Can manage operators, roles, sessions and 2FA")]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def is_service_principal(self) -> bool:
        return self.kind == OperatorKind.SERVICE

    def role_names(self) -> frozenset[str]:
        cached: frozenset[str] | None = getattr(self, "_role_names", None)
        if cached is None:
            cached = frozenset(self.groups.values_list("name", flat=True))
            self._role_names = cached
        return cached

    def role_labels(self) -> list[str]:
        """The operator's roles as people read them, in the active language."""
        return [str(Role(name).label) for name in sorted(self.role_names()) if name in Role.values]

    def has_role(self, *roles: str) -> bool:
        return bool(self.role_names() & set(roles))


class ActorType(models.TextChoices):
    OPERATOR = "operator", gettext_lazy("Operator")
    SERVICE = "service", gettext_lazy("Service principal")
    SYSTEM = "system", gettext_lazy("System")


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def update(self, **kwargs: object) -> int:
        raise PermissionError("Audit events are append-only; they cannot be updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("Audit events are append-only; they cannot be deleted.")


class AuditEvent(models.Model):
    """One entry of the append-only, hash-chained audit trail. Written only by
    identity.audit.audit_record; `hash` covers the content and `prev_hash`."""

    seq = models.PositiveBigIntegerField(unique=True)
    occurred_at = models.DateTimeField(db_index=True)
    actor_type = models.CharField(max_length=16, choices=ActorType.choices)
    actor_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    actor_label = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=80, db_index=True)
    target_type = models.CharField(max_length=80, blank=True)
    target_id = models.CharField(max_length=80, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    request_id = models.CharField(max_length=64, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["seq"]
        indexes = [models.Index(fields=["target_type", "target_id"])]
        permissions = [("view_audit_trail", "Can read and export the audit trail")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.action} {self.target_type}:{self.target_id}"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise PermissionError("Audit events are append-only; they cannot be updated.")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise PermissionError("Audit events are append-only; they cannot be deleted.")


class AuditChainHead(models.Model):
    """A single row holding the last sequence number and hash. Writers lock it, so events get
    gap-free sequence numbers and each one chains onto the one before it."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    seq = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64, default="0" * 64)

    def __str__(self) -> str:
        return f"audit head #{self.seq}"


class ApiToken(models.Model):
    """A bearer token of a service principal, limited to `scopes`. Only a SHA-256 of the
    secret is stored; the full token is shown once, when it is created."""

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True)
    token_hash = models.CharField(max_length=64)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        Operator, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


class ThrottleScope(models.TextChoices):
    ACCOUNT = "account", gettext_lazy("Account")
    IP = "ip", gettext_lazy("IP address")


class LoginThrottle(models.Model):
    """Failed password or OTP attempts for one account name or one client address, within
    a window. Kept in the database, not the cache, so every process and every server sees
    the same counts (a per-process locmem counter would multiply the allowance by the
    number of workers)."""

    scope = models.CharField(max_length=16, choices=ThrottleScope.choices)
    key = models.CharField(max_length=150)
    failures = models.PositiveIntegerField(default=0)
    window_started_at = models.DateTimeField()
    locked_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="identity_throttle_scope_key")
        ]

    def __str__(self) -> str:
        return f"{self.scope}:{self.key} ({self.failures})"


class OperatorSession(models.Model):
    """A browser signed in as an operator. The row mirrors a django_session row (same key);
    revoking deletes both, so that browser is anonymous on its next request."""

    session_key = models.CharField(max_length=40, unique=True)
    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="sessions")
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-last_seen_at"]

    def __str__(self) -> str:
        return f"session of {self.operator_id} from {self.ip}"


class CredentialResetStatus(models.TextChoices):
    PENDING = "pending", gettext_lazy("Waiting for a second admin")
    APPROVED = "approved", gettext_lazy("Approved and carried out")
    CANCELLED = "cancelled", gettext_lazy("Cancelled")


class CredentialKind(models.TextChoices):
    """The way in that a reset replaces."""

    TOTP = "totp", gettext_lazy("two-factor setup")
    PASSWORD = "password", gettext_lazy("password")


class CredentialResetRequest(models.Model):
    """An admin's request to reset another operator's two-factor setup or password. It is
    carried out only when a second admin approves it (four eyes): one admin alone can neither
    strip an account's second factor nor set a password they know. A pending request lapses
    after CREDENTIAL_RESET_REQUEST_HOURS."""

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=CredentialKind.choices)
    requested_by = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=16,
        choices=CredentialResetStatus.choices,
        default=CredentialResetStatus.PENDING,
    )
    decided_by = models.ForeignKey(
        Operator, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["operator", "kind"],
                condition=models.Q(status="pending"),
                name="identity_one_pending_credential_reset",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} reset of {self.operator_id} ({self.status})"
