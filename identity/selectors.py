"""Identity reads."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.contrib.sessions.models import Session
from django.db.models import Count, Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from identity.models import (
    ActorType,
    ApiToken,
    AuditEvent,
    CredentialResetRequest,
    CredentialResetStatus,
    Operator,
    OperatorSession,
)


def operator_list() -> QuerySet[Operator]:
    return (
        Operator.objects.prefetch_related("groups")
        .annotate(session_count=Count("sessions", distinct=True))
        .order_by("kind", "username")
    )


def operator_get(*, pk: int) -> Operator:
    return get_object_or_404(Operator.objects.prefetch_related("groups"), pk=pk)


def session_list_for_operator(*, operator: Operator) -> QuerySet[OperatorSession]:
    """Sessions whose django_session row is still alive; expired ones are not listed."""
    live = Session.objects.filter(expire_date__gt=timezone.now()).values("session_key")
    return OperatorSession.objects.filter(operator=operator, session_key__in=live)


def session_get_for_operator(*, operator: Operator, pk: int) -> OperatorSession:
    """404 for someone else's session: session ids must not be probed."""
    return get_object_or_404(OperatorSession, pk=pk, operator=operator)


def api_token_list() -> QuerySet[ApiToken]:
    return ApiToken.objects.select_related("operator", "created_by").order_by("-created_at")


def service_principal_list() -> QuerySet[Operator]:
    return Operator.objects.filter(kind="service").prefetch_related(
        Prefetch("api_tokens", queryset=ApiToken.objects.order_by("-created_at"))
    )


@dataclass(frozen=True)
class AuditFilter:
    actor: str = ""
    actor_type: str = ""
    action: str = ""
    target_type: str = ""
    target_id: str = ""
    since: dt.datetime | None = None
    until: dt.datetime | None = None


def audit_event_list(*, filters: AuditFilter) -> QuerySet[AuditEvent]:
    """Newest first. Actor, action and target type match as prefixes, in any case: `bo`
    finds Bob, `REFUND.` every refund action, `payments` every payments object. "system"
    as the actor means the system's own events."""
    events = AuditEvent.objects.all()
    if filters.actor:
        if filters.actor.strip().lower() == "system":
            events = events.filter(actor_type=ActorType.SYSTEM)
        else:
            events = events.filter(actor_label__istartswith=filters.actor.strip())
    if filters.actor_type:
        events = events.filter(actor_type=filters.actor_type)
    if filters.action:
        events = events.filter(action__istartswith=filters.action.strip())
    if filters.target_type:
        events = events.filter(target_type__istartswith=filters.target_type.strip())
    if filters.target_id:
        events = events.filter(target_id=filters.target_id)
    if filters.since:
        events = events.filter(occurred_at__gte=filters.since)
    if filters.until:
        events = events.filter(occurred_at__lt=filters.until)
    return events.order_by("-seq")


def credential_reset_expires_at(reset: CredentialResetRequest) -> dt.datetime:
    return reset.created_at + dt.timedelta(hours=settings.CREDENTIAL_RESET_REQUEST_HOURS)


def credential_reset_is_open(reset: CredentialResetRequest) -> bool:
    """Pending and not yet lapsed."""
    return reset.status == CredentialResetStatus.PENDING and (
        timezone.now() < credential_reset_expires_at(reset)
    )


def credential_reset_open_list() -> list[CredentialResetRequest]:
    """Password and two-factor resets waiting for a second admin (lapsed ones left out)."""
    waiting = CredentialResetRequest.objects.filter(
        status=CredentialResetStatus.PENDING
    ).select_related("operator", "requested_by")
    return [reset for reset in waiting if credential_reset_is_open(reset)]


def credential_reset_open_for(*, operator: Operator) -> dict[str, CredentialResetRequest]:
    """The operator's open resets by kind (`CredentialKind` value)."""
    return {r.kind: r for r in credential_reset_open_list() if r.operator_id == operator.pk}
