"""A failing trial becomes a ticket in the inbox, for an operator to review.

The ticket is opened through the tickets app's public service for findings
(tickets.services.ticket_open_for_finding) inside this service's transaction, so the whole
hand-off is one audited action (`evals.trial.ticket_create`). It goes to the go-live findings
queue's on-duty members, or else to the release manager who opened it; it reads like an
escalation (the conversation turn by turn, each tool call and result) and takes internal notes
only, its customer being simulated. The link goes both ways: TrialResult.ticket points at the
ticket (reverse: `ticket.eval_trial`), and the ticket links the trial page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from backoffice.errors import Conflict, NotFound, ValidationFailed
from evals import access
from evals.models import ERROR_OUTCOMES, TrialOutcome, TrialResult
from identity.audit import audit_record
from identity.models import Operator
from tickets.services import ticket_open_for_finding

if TYPE_CHECKING:
    from tickets.models import Ticket

QUEUE_SLUG = "go-live"


def _site_words(trial: TrialResult, failure: str) -> tuple[str, str]:
    """The queue's name and the ticket's subject are records operators rename and search,
    like a customer's subject: they are written once, in the deployment's language
    (LANGUAGE_CODE), not in the language of whoever happened to open the first finding."""
    with translation.override(settings.LANGUAGE_CODE):
        queue_name = _("Go-live findings")
        subject = _("Go-live run #%(run)s: %(trial)s failed (%(failure)s)") % {
            "run": trial.run_id,
            "trial": trial.key,
            "failure": failure,
        }
    return queue_name, subject


def eval_trial_ticket_create(*, actor: Operator, trial_id: int) -> Ticket:
    access.ensure_ticket(actor)
    with transaction.atomic():
        trial = (
            TrialResult.objects.select_for_update()
            .select_related("run")
            .filter(pk=trial_id)
            .first()
        )
        if trial is None:
            raise NotFound(_("No such trial."))
        if trial.outcome == TrialOutcome.PASS:
            raise ValidationFailed(_("Only a failing trial can be turned into a ticket."))
        if trial.outcome in ERROR_OUTCOMES:
            # The provider or the simulated customer failed, not the agent: there is
            # nothing for an operator to review, and the trial is re-run instead.
            raise ValidationFailed(
                _("An error trial is not the agent's failure: re-run it instead of a ticket.")
            )
        if trial.ticket_id is not None:
            raise Conflict(
                _("This trial already has ticket #%(ticket_id)s.") % {"ticket_id": trial.ticket_id}
            )
        failure = trial.failure_class or trial.outcome
        components = ", ".join(f"{k}={v:g}" for k, v in trial.components.items())
        queue_name, subject = _site_words(trial, failure)
        ticket = ticket_open_for_finding(
            actor=actor,
            queue_slug=getattr(settings, "EVALS_TICKET_QUEUE", QUEUE_SLUG),
            queue_name=queue_name,
            subject=subject,
            # Values, worded on the ticket in its reader's language (tickets.phrases).
            card={
                "run": trial.run_id,
                "trial": trial.key,
                "failure": failure,
                "termination": trial.termination,
                "suite": trial.run.suite_name,
                "agent": trial.run.agent_model,
                "components": components,
            },
            diff=[str(d) for d in trial.diff[:10]],
            notes=[str(n) for n in trial.notes[:10]],
            # The first message is the agent's system prompt, not part of the conversation.
            transcript=list((trial.trajectory or {}).get("messages", [])[1:]),
            source_url=reverse("evals:trial_detail", args=[trial.run_id, trial.pk]),
            tags=["go-live", failure.replace("_", "-")],
        )
        trial.ticket = ticket
        trial.save(update_fields=["ticket"])
        audit_record(
            actor=actor,
            action="evals.trial.ticket_create",
            target=trial,
            after={
                "ticket": ticket.pk,
                "run": trial.run_id,
                "key": trial.key,
                "failure": failure,
                "owner": ticket.assignee_id,
            },
        )
    return ticket
