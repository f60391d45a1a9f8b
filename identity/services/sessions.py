"""Operator sessions: revoking one deletes its django_session row, so the browser holding
that cookie is anonymous on its next request."""

from __future__ import annotations

from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils.translation import gettext

from backoffice.errors import Forbidden
from identity.audit import audit_record
from identity.models import Operator, OperatorSession


def revoke_all_sessions(operator: Operator) -> int:
    """Delete every session of `operator`; a helper for audited services, not audited itself."""
    keys = list(
        OperatorSession.objects.filter(operator=operator).values_list("session_key", flat=True)
    )
    Session.objects.filter(session_key__in=keys).delete()
    OperatorSession.objects.filter(operator=operator).delete()
    return len(keys)


def session_rotate(session: SessionBase) -> None:
    """Give the session a new key, keeping its contents, and move its bookkeeping row along.

    Called when a session gains privilege (the second factor accepted, a password changed): a
    key that was known before, planted by an attacker or read off a half-logged-in browser,
    must not become a verified session. Bookkeeping only; the audited event is the caller's.
    """
    old_key = session.session_key
    session.cycle_key()
    if old_key and session.session_key:
        OperatorSession.objects.filter(session_key=old_key).update(session_key=session.session_key)


def session_revoke(*, actor: Operator, session: OperatorSession) -> None:
    """Sign one browser out. Operators revoke their own sessions; admins any."""
    if session.operator_id != actor.pk and not actor.has_perm("identity.manage_operators"):
        raise Forbidden(gettext("You can only revoke your own sessions."))
    with transaction.atomic():
        Session.objects.filter(session_key=session.session_key).delete()
        OperatorSession.objects.filter(pk=session.pk).delete()
        audit_record(
            actor=actor,
            action="session.revoke",
            target=session.operator,
            after={"session_id": session.pk, "ip": session.ip, "user_agent": session.user_agent},
        )
