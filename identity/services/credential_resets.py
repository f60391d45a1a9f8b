"""Resetting another operator's way in takes two admins (four eyes).

One admin alone could otherwise strip an account's second factor, or give it a password they
know, and so become that operator (and approve what that operator may approve). So a reset is
a request, carried out only when a *different* active admin approves it: not the requester,
not the operator being reset, and not an account the requester created or gave its roles to
(a second admin account under the first one's control). Asking and approving need a fresh
code (step-up) in the view, like every sensitive action.

Two kinds, one rule:
- a two-factor reset removes the app and backup codes; the operator enrols again after their
  password, which only they know;
- a password reset sets a one-time temporary password that only the approving admin sees
  (the requester never does), ends every session, and forces the operator to choose their
  own password after their second factor, which the reset leaves in place.

A temporary password and an account without a second factor together are an account anyone
holding that password can enrol into. So a password reset is refused while the operator's
two-factor setup is gone, and a two-factor reset is refused while the operator's password is
a temporary one: one factor stays the operator's own at every moment.
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
    CredentialKind,
    CredentialResetRequest,
    CredentialResetStatus,
    Operator,
    Role,
)
from identity.selectors import credential_reset_is_open
from identity.services.passwords import temporary_password
from identity.services.sessions import revoke_all_sessions


def _is_admin(operator: Operator) -> bool:
    return (
        operator.is_active and not operator.is_service_principal and operator.has_role(Role.ADMIN)
    )


def _other_factor_missing(operator: Operator, kind: CredentialKind | str) -> str:
    """Why resetting `kind` now would leave `operator` with no factor of their own, or ""."""
    if kind == CredentialKind.PASSWORD and not otp.has_second_factor(operator):
        return gettext(
            "This operator has no two-factor setup: whoever held a temporary password could "
            "enrol their own app. Let them enrol first, or create a new account."
        )
    if kind == CredentialKind.TOTP and operator.must_change_password:
        return gettext(
            "This operator's password is a temporary one that an admin saw: removing their "
            "two-factor setup now would leave nothing only they know. Let them set their own "
            "password first, or create a new account."
        )
    return ""


def credential_reset_request(
    *, actor: Operator, operator: Operator, kind: CredentialKind | str, reason: str
) -> CredentialResetRequest:
    """Ask for a reset of `operator`'s two-factor setup or password; nothing changes until a
    second admin approves. One open request per operator and kind: a new one replaces a
    lapsed one."""
    kind = CredentialKind(kind)
    reason = reason.strip()
    if not reason:
        raise ValidationFailed(
            gettext("Say why."), fields={"reason": [gettext("This field is required.")]}
        )
    if not _is_admin(actor):
        raise Forbidden(gettext("Only an admin can ask for a reset."))
    if operator.is_service_principal:
        raise Conflict(gettext("Service principals have no password or two-factor setup."))
    if actor.pk == operator.pk:
        raise Conflict(
            gettext("Change your own password or two-factor setup on your Security page.")
        )
    missing = _other_factor_missing(operator, kind)
    if missing:
        raise Conflict(missing)
    with transaction.atomic():
        # A lapsed request no longer blocks a new one (one pending per operator and kind).
        for stale in CredentialResetRequest.objects.select_for_update().filter(
            operator=operator, kind=kind, status=CredentialResetStatus.PENDING
        ):
            if credential_reset_is_open(stale):
                raise Conflict(gettext("A reset of this operator is already waiting for approval."))
            stale.status = CredentialResetStatus.CANCELLED
            stale.decided_at = timezone.now()
            stale.save(update_fields=["status", "decided_at"])
        try:
            with transaction.atomic():
                reset = CredentialResetRequest.objects.create(
                    operator=operator, kind=kind, requested_by=actor, reason=reason
                )
        except IntegrityError as exc:
            raise Conflict(
                gettext("A reset of this operator is already waiting for approval.")
            ) from exc
        audit_record(
            actor=actor,
            action=f"operator.{kind}_reset_request",
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


def approval_refusal(*, actor: Operator, reset: CredentialResetRequest) -> str:
    """Why `actor` may not approve `reset`, or "" when they may."""
    if not _is_admin(actor) or not otp.has_second_factor(actor):
        return gettext("Only an active admin with two-factor authentication can approve.")
    if actor.pk == reset.requested_by_id:
        return gettext("A second admin must approve: you asked for this reset.")
    if actor.pk == reset.operator_id:
        return gettext("You cannot approve a reset of your own password or two-factor setup.")
    if _administered_by(actor, reset.requested_by):
        return gettext(
            "The requesting admin created your account or set your roles, so your approval "
            "would not be independent. Another admin must approve."
        )
    return _other_factor_missing(reset.operator, reset.kind)


def _devices_remove(operator: Operator) -> int:
    """Remove the operator's authenticator app and backup codes; how many devices went."""
    removed, _ = TOTPDevice.objects.filter(user=operator).delete()
    removed_static, _ = StaticDevice.objects.filter(user=operator).delete()
    return removed + removed_static


def credential_reset_approve(*, actor: Operator, reset: CredentialResetRequest) -> str | None:
    """Carry out the reset; return the temporary password of a password reset (shown once,
    to this approver only; never stored or audited), None for a two-factor reset.

    Either way the operator's sessions end. A two-factor reset removes the app and backup
    codes (they enrol again after their next password login); a password reset leaves the
    second factor and makes the operator replace the temporary password right after it."""
    with transaction.atomic():
        reset = CredentialResetRequest.objects.select_for_update().get(pk=reset.pk)
        if not credential_reset_is_open(reset):
            raise Conflict(gettext("This request is no longer waiting for approval."))
        operator = Operator.objects.select_for_update().get(pk=reset.operator_id)
        reset.operator = operator
        refusal = approval_refusal(actor=actor, reset=reset)
        if refusal:
            raise Forbidden(refusal)
        temporary: str | None = None
        after: dict[str, object] = {
            "request_id": reset.pk,
            "requested_by": reset.requested_by.username,
            "approved_by": actor.username,
        }
        if reset.kind == CredentialKind.TOTP:
            after["devices_removed"] = _devices_remove(operator)
        else:
            temporary = temporary_password()
            operator.set_password(temporary)
            operator.must_change_password = True
            operator.save(update_fields=["password", "must_change_password"])
        after["sessions_revoked"] = revoke_all_sessions(operator)
        reset.status = CredentialResetStatus.APPROVED
        reset.decided_by = actor
        reset.decided_at = timezone.now()
        reset.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor=actor, action=f"operator.{reset.kind}_reset", target=operator, after=after
        )
    return temporary


def credential_reset_cancel(*, actor: Operator, reset: CredentialResetRequest) -> None:
    """Withdraw (the requester) or turn down (another admin) a waiting request."""
    if not _is_admin(actor):
        raise Forbidden(gettext("Only an admin can cancel a reset."))
    with transaction.atomic():
        reset = CredentialResetRequest.objects.select_for_update().get(pk=reset.pk)
        if reset.status != CredentialResetStatus.PENDING:
            raise Conflict(gettext("This request is no longer waiting for approval."))
        reset.status = CredentialResetStatus.CANCELLED
        reset.decided_by = actor
        reset.decided_at = timezone.now()
        reset.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor=actor,
            action=f"operator.{reset.kind}_reset_cancel",
            target=reset.operator,
            after={"request_id": reset.pk},
        )
