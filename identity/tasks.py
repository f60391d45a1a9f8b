"""Celery tasks of identity: thin wrappers."""

from __future__ import annotations

from io import StringIO

from celery import shared_task
from django.core.management import call_command


@shared_task(name="identity.tasks.audit_checkpoint")
def audit_checkpoint() -> str:
    """Verify the audit chain and append a signed checkpoint (identity.audit_anchor); fails
    loudly (CommandError) when the chain or an earlier checkpoint does not hold."""
    out = StringIO()
    call_command("audit", "checkpoint", stdout=out)
    return out.getvalue().strip()
