"""A failing trial becomes a ticket in the inbox, for an operator to review.

The ticket is built with the tickets app's own row helpers (SLA clocks, timeline event,
routing) inside this service's transaction, so the whole hand-off is one audited action
(`evals.trial.ticket_create`). The link goes both ways: TrialResult.ticket points at the
ticket (reverse: `ticket.eval_trial`), and the ticket's first message links the trial page.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

from backoffice.errors import Conflict, NotFound, ValidationFailed
from evals import access
from evals.models import TrialOutcome, TrialResult
from identity.audit import audit_record
from identity.models import Operator
from tickets.models import Channel, Message, MessageKind, Priority, Queue, Status, Ticket
from tickets.services import customer_upsert
from tickets.services.conversation import create_ticket_row

QUEUE_SLUG = "go-live"
TRANSCRIPT_LIMIT = 40


def _queue() -> Queue:
    slug = getattr(settings, "EVALS_TICKET_QUEUE", QUEUE_SLUG)
    queue, _ = Queue.objects.get_or_create(
        slug=slug,
        defaults={"name": "Go-live findings", "description": "Failing go-live trials to review"},
    )
    return queue


def _transcript(trial: TrialResult) -> str:
    lines: list[str] = []
    for message in (trial.trajectory or {}).get("messages", [])[1:TRANSCRIPT_LIMIT]:
        role = message.get("role")
        if role in ("user", "assistant") and message.get("content"):
            lines.append(f"{'Customer' if role == 'user' else 'Agent'}: {message['content']}")
        for call in message.get("tool_calls", []):
            lines.append(f"Agent calls {call['name']}({call['arguments']})")
        if role == "tool":
            lines.append(f"  → {message.get('content', '')[:300]}")
    return "\n".join(lines)


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
            raise NotFound(gettext("No such trial."))
        if trial.outcome == TrialOutcome.PASS:
            raise ValidationFailed(gettext("Only a failing trial can be turned into a ticket."))
        if trial.ticket_id is not None:
            raise Conflict(
                gettext("This trial already has ticket #%(ticket_id)s.")
                % {"ticket_id": trial.ticket_id}
            )
        now = timezone.now()
        queue = _queue()
        customer = customer_upsert(name="Go-live simulated customer", external_id="evals-sandbox")
        failure = trial.failure_class or trial.outcome
        ticket = create_ticket_row(
            actor=actor,
            subject=f"Go-live run #{trial.run_id}: {trial.key} failed ({failure})",
            customer=customer,
            queue=queue,
            priority=Priority.NORMAL,
            channel=Channel.AI_AGENT,
            status=Status.NEW,
            tags=["go-live", failure.replace("_", "-")],
            now=now,
        ).ticket
        url = reverse("evals:trial_detail", args=[trial.run_id, trial.pk])
        details = [
            f"Go-live trial {trial.key} of run #{trial.run_id} ({trial.run.suite_name}, "
            f"agent {trial.run.agent_model}) failed: {failure}, ended by {trial.termination}.",
            f"Reward components: {', '.join(f'{k}={v:g}' for k, v in trial.components.items()) or 'none'}.",
            *(f"State diff: {d}" for d in trial.diff[:10]),
            *(f"Note: {n}" for n in trial.notes[:10]),
            f"Trial page: {url}",
        ]
        Message.objects.create(
            ticket=ticket,
            kind=MessageKind.SYSTEM,
            author_label="Go-live suite",
            body="\n".join(details),
            created_at=now,
        )
        transcript = _transcript(trial)
        if transcript:
            Message.objects.create(
                ticket=ticket,
                kind=MessageKind.SYSTEM,
                author_label="Go-live suite",
                body=transcript,
                created_at=now,
            )
        trial.ticket = ticket
        trial.save(update_fields=["ticket"])
        audit_record(
            actor=actor,
            action="evals.trial.ticket_create",
            target=trial,
            after={"ticket": ticket.pk, "run": trial.run_id, "key": trial.key, "failure": failure},
        )
    return ticket
