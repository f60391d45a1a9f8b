"""Resetting another operator's two-factor setup takes two admins (four eyes).

One admin alone could otherwise strip an account's second factor and, with its password,
become that operator (and approve what that operator may approve). So a reset is a request,
carried out only when a *different* active admin approves it: not the requester, not the
operator being reset, and not an account the requester created or gave its roles to (a second
admin account under the first one's control). Approving needs a fresh code (step-up) in the
view, like every sensitive action.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice.errors import Conflict, Forbidden, ValidationFailed
from identity import otp
from identity.audit import audit_record
from identity.models import (
    ActorType,
    AuditEvent,
    Operator,
    Role,
    TotpResetRequest,
    TotpResetStatus,
)
from identity.selectors import totp_reset_is_open
from identity.services.sessions import revoke_all_sessions


def _is_admin(operator: Operator) -> bool:
    return (
        operator.is_active and not operator.is_service_principal and operator.has_role(Role.ADMIN)
    )


def operator_totp_reset_request(
    *, actor: Operator, operator: Operator, reason: str
) -> TotpResetRequest:
    """Ask for a reset of `operator`'s two-factor setup; nothing changes until a second admin
    approves. One open request per operator: a new one replaces a lapsed one."""
    reason = reason.strip()
    if not reason:
        raise ValidationFailed(
            gettext("Say why."), fields={"reason": [gettext("This field is required.")]}
        )
    if not _is_admin(actor):
        raise Forbidden(gettext("Only an admin can ask for a two-factor reset."))
    if operator.is_service_principal:
        raise Conflict(gettext("Service principals have no two-factor setup."))
    with transaction.atomic():
        # A lapsed request no longer blocks a new one (one pending per operator).
        for stale in TotpResetRequest.objects.select_for_update().filter(
            operator=operator, status=TotpResetStatus.PENDING
        ):
            if totp_reset_is_open(stale):
                raise Conflict(gettext("A reset of this operator is already waiting for approval."))
            stale.status = TotpResetStatus.CANCELLED
            stale.decided_at = timezone.now()
            stale.save(update_fields=["status", "decided_at"])
        try:
            with transaction.atomic():
                reset = TotpResetRequest.objects.create(
                    operator=operator, requested_by=actor, reason=reason
                )
        except IntegrityError as exc:
            raise Conflict(
                gettext("A reset of this operator is already waiting for approval.")
            ) from exc
        audit_record(
            actor=actor,
            action="operator.totp_reset_request",
            target=operator,
            after={"request_id": reset.pk, "reason": reason},
        )
    return reset


def _administered_by(approver: Operator, requester: Operator) -> bool:
    """Whether `requester` created `approver` or set their roles: such an account may be the
    requester's own second identity (they saw its temporary password, or made it an admin)."""
    return AuditEvent.objects.filter(
        actor_type=ActorType.OPERATOR,
        actor_id=requester.pk,
        action__in=["operator.create", "operator.roles_set"],
        target_type="identity.operator",
        target_id=str(approver.pk),
    ).exists()


def approval_refusal(*, actor: Operator, reset: TotpResetRequest) -> str:
    """Why `actor` may not approve `reset`, or "" when they may."""
    if not _is_admin(actor) or not otp.has_second_factor(actor):
        return gettext("Only an active admin with two-factor authentication can approve.")
    if actor.pk == reset.requested_by_id:
        return gettext("A second admin must approve: you asked for this reset.")
    if actor.pk == reset.operator_id:
        return gettext("You cannot approve a reset of your own two-factor setup.")
    if _administered_by(actor, reset.requested_by):
        return gettext(
            "The requesting admin created your account or set your roles, so your approval "
            "would not be independent. Another admin must approve."
        )
    return ""


def operator_totp_reset_approve(*, actor: Operator, reset: TotpResetRequest) -> None:
    """Carry out the reset: the operator's app and backup codes go, their sessions end, and
    they enrol again after their next password login (the password only they know)."""
    with transaction.atomic():
        reset = TotpResetRequest.objects.select_for_update().get(pk=reset.pk)
        if not totp_reset_is_open(reset):
            raise Conflict(gettext("This request is no longer waiting for approval."))
        refusal = approval_refusal(actor=actor, reset=reset)
        if refusal:
            raise Forbidden(refusal)
        operator = reset.operator
        devices = (
            TOTPDevice.objects.filter(user=operator).count()
            + StaticDevice.objects.filter(user=operator).count()
        )
        TOTPDevice.objects.filter(user=operator).delete()
        StaticDevice.objects.filter(user=operator).delete()
        sessions = revoke_all_sessions(operator)
        reset.status = TotpResetStatus.APPROVED
        reset.decided_by = actor
        reset.decided_at = timezone.now()
        reset.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor=actor,
            action="operator.totp_reset",
            target=operator,
            after={
                "request_id": reset.pk,
                "requested_by": reset.requested_by.username,
                "approved_by": actor.username,
                "devices_removed": devices,
                "sessions_revoked": sessions,
            },
        )


def operator_totp_reset_cancel(*, actor: Operator, reset: TotpResetRequest) -> None:
    """Withdraw (the requester) or turn down (another admin) a waiting request."""
    if not _is_admin(actor):
        raise Forbidden(gettext("Only an admin can cancel a two-factor reset."))
    with transaction.atomic():
        reset = TotpResetRequest.objects.select_for_update().get(pk=reset.pk)
        if reset.status != TotpResetStatus.PENDING:
            raise Conflict(gettext("This request is no longer waiting for approval."))
        reset.status = TotpResetStatus.CANCELLED
        reset.decided_by = actor
        reset.decided_at = timezone.now()
        reset.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor=actor,
            action="operator.totp_reset_cancel",
            target=reset.operator,
            after={"request_id": reset.pk},
        )
