"""The trial page (verdict first, then the conversation, the agent's policy collapsed and
rendered) and the actions on a trial: a ticket for a failing one, a re-run for an error."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from backoffice.errors import DomainError
from backoffice.request_operator import request_operator
from evals import access, selectors, services
from evals.domains import get_domain
from evals.engine.errors import EngineError
from evals.engine.persona import parse_persona
from evals.models import ERROR_OUTCOMES, RunStatus, TrialOutcome, TrialResult
from evals.views.markup import render_markdown

# `tables.orders.#W1.status: expected 'cancelled', got 'pending'` (evals.engine.world.diff)
_DIFF_LINE = re.compile(r"^(?P<path>[^:]+): (?P<what>.*)$")
_ENTITY = re.compile(r"^(tables\.[^.]+\.[^.\[]+|[^.\[]+(?:\.[^.\[]+)?(?:\[\d+\])?)")


def _diff_by_entity(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The oracle's diff lines grouped by the record they touch, each line marked added
    (only in the agent's final state), removed (only in the gold replay's) or changed."""
    groups: dict[str, list[dict[str, str]]] = {}
    for line in lines:
        match = _DIFF_LINE.match(line)
        if match is None:  # "... and 12 more differences"
            groups.setdefault("", []).append({"kind": "more", "field": "", "text": line})
            continue
        path, what = match["path"], match["what"]
        entity_match = _ENTITY.match(path)
        entity = entity_match.group(1) if entity_match else path
        field = path[len(entity) :].lstrip(".")
        if what.startswith("unexpected"):
            kind = "added"
        elif what.endswith(", missing"):
            kind = "removed"
        else:
            kind = "changed"
        groups.setdefault(entity, []).append({"kind": kind, "field": field, "text": what})
    return [{"entity": e, "lines": ls} for e, ls in groups.items()]


def _pretty(arguments: str) -> str:
    """A tool call's raw JSON arguments, indented when they parse (kept as sent otherwise:
    malformed arguments are part of what the agent did)."""
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return arguments


def _turns(trajectory: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """System prompts apart (the policy, collapsed on the page); every other message with
    its tool calls, each call with its result and the guard's verdict on it."""
    verdicts = {v["call_id"]: v for v in trajectory.get("verdicts", [])}
    results = {
        m.get("tool_call_id"): m for m in trajectory.get("messages", []) if m.get("role") == "tool"
    }
    records = {
        r["message"]: r
        for r in trajectory.get("message_records") or ()
        if isinstance(r, dict) and r.get("message") is not None
    }
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for position, message in enumerate(trajectory.get("messages", [])):
        role = message.get("role")
        if role == "tool":
            continue  # shown under the call it answers
        if role == "system":
            system.append(message.get("content", ""))
            continue
        calls = [
            {
                "call": c,
                "arguments": _pretty(c.get("arguments", "")),
                "result": results.get(c["id"]),
                "verdict": verdicts.get(c["id"]),
            }
            for c in message.get("tool_calls", [])
        ]
        turns.append(
            {
                "index": len(turns) + 1,
                "role": role,
                "content": message.get("content", ""),
                "calls": calls,
                "signal": message.get("signal", ""),
                "usage": _message_usage(records.get(position)),
            }
        )
    return system, turns


def _message_usage(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """What producing one message cost (evals.engine.runner.turns): seconds, tokens in and
    out, cost in USD and the model calls behind it (an offline participant makes none)."""
    if record is None:
        return None
    calls = record.get("calls") or []
    return {
        "seconds": float(record.get("seconds") or 0.0),
        "tokens_in": int(record.get("tokens_in") or 0),
        "tokens_out": int(record.get("tokens_out") or 0),
        "cost": f"${float(record.get('cost_usd') or 0.0):.4f}",
        "calls": len(calls),
        "retries": sum(int(c.get("retries") or 0) for c in calls if isinstance(c, dict)),
    }


def _usage_per_turn(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The per-message table: every message that has a record, with its share of the
    trial's costliest message (a bar), so the expensive turn stands out."""
    rows = [{"index": t["index"], "role": t["role"], **t["usage"]} for t in turns if t["usage"]]
    costliest = max((r["tokens_in"] + r["tokens_out"] for r in rows), default=0)
    for r in rows:
        total = r["tokens_in"] + r["tokens_out"]
        r["percent"] = round(100 * total / costliest) if costliest else 0
    return rows


def _error_kind(trial: TrialResult) -> dict[str, str] | None:
    """For an error trial: what failed, in words, and the error as recorded."""
    if trial.outcome == TrialOutcome.INFRASTRUCTURE:
        return {
            "title": _("Infrastructure error: the trial did not measure the agent"),
            "what": _(
                "The model provider, the network or the harness failed before the conversation "
                "could end (a refused key, an unknown model, a timeout, an outage). It is left "
                "out of pass^k and counted against the run's infrastructure-error threshold."
            ),
            "error": trial.error or (trial.notes[0] if trial.notes else ""),
        }
    if trial.outcome == TrialOutcome.SIMULATOR:
        return {
            "title": _("Simulator error: the simulated customer broke its scenario"),
            "what": _(
                "The simulated customer stated a fact it was never given, or stopped when the "
                "agent proposed exactly what it wanted. It is left out of pass^k and counted "
                "against the run's simulator-error threshold."
            ),
            "error": trial.error or (trial.notes[0] if trial.notes else ""),
        }
    return None


def _customer(trial: TrialResult) -> dict[str, Any]:
    """Who the simulated customer was: the persona's traits, and the task's scenario (what
    the customer knows and wants) as the code installed now defines it."""
    try:
        persona: dict[str, str] | None = parse_persona(trial.persona).to_dict()
    except (EngineError, ValueError):
        persona = None
    try:
        scenario = get_domain(trial.domain).task(trial.task_id).scenario
    except EngineError:
        scenario = None
    return {"persona": persona, "scenario": scenario}


def _timings(trajectory: dict[str, Any]) -> list[dict[str, Any]]:
    """Seconds per turn, in turn order (agent, customer, or the world running a turn's tool
    calls), with each turn's share of the slowest for a bar."""
    rows = [
        {"turn": turn, "actor": actor, "seconds": float(seconds)}
        for turn, actor, seconds in trajectory.get("timings", [])
    ]
    slowest = max((r["seconds"] for r in rows), default=0.0)
    for r in rows:
        r["percent"] = round(100 * r["seconds"] / slowest) if slowest else 0
    return rows


def _usage_rows(trial: TrialResult) -> list[dict[str, Any]]:
    return [
        {
            "role": role,
            "tokens_in": getattr(trial, f"{role}_tokens_in"),
            "tokens_out": getattr(trial, f"{role}_tokens_out"),
            "cost": f"${getattr(trial, f'{role}_cost_micros') / 1_000_000:.4f}",
        }
        for role in ("agent", "user")
    ]


def _rerun_offer(run: Any, user: Any) -> str:
    """How an error trial can be re-run from here: `rerun` (a finished run's error trials),
    `resume` (an interrupted run, which re-runs its errors), `running` (it is being run), or
    '' (not allowed for this user)."""
    if not access.can_start_runs(user):
        return ""
    if run.status in (RunStatus.COMPLETED, RunStatus.ERROR):
        return "rerun"
    if run.status == RunStatus.FAILED:
        return "resume"
    return "running"


@require_GET
def trial_detail(request: HttpRequest, run_id: int, trial_id: int) -> HttpResponse:
    _require_view(request)
    try:
        trial = selectors.trial_get(run_id=run_id, trial_id=trial_id)
    except DomainError as exc:
        raise Http404 from exc
    trajectory = trial.trajectory or {}
    system, turns = _turns(trajectory)
    previous, following, position, failing = selectors.trial_failing_neighbours(trial=trial)
    errored = trial.outcome in ERROR_OUTCOMES
    return render(
        request,
        "evals/trial_detail.html",
        {
            "trial": trial,
            "run": trial.run,
            "turns": turns,
            "policy": [render_markdown(text) for text in system],
            "verdicts": trajectory.get("verdicts", []),
            "customer": _customer(trial),
            "timings": _timings(trajectory),
            "usage_rows": _usage_rows(trial),
            "usage_per_turn": _usage_per_turn(turns),
            "errored": errored,
            "error_kind": _error_kind(trial),
            "diff_groups": _diff_by_entity(trial.diff or []),
            "previous_failing": previous,
            "next_failing": following,
            "failing_position": position,
            "failing_count": failing,
            "rerun": _rerun_offer(trial.run, request.user) if errored else "",
            "can_ticket": access.can_ticket_trials(request.user)
            and trial.outcome == TrialOutcome.FAIL
            and trial.ticket_id is None,
        },
    )


@require_GET
def trial_cell(request: HttpRequest, run_id: int, trial_id: int) -> HttpResponse:
    """The same task and persona in every trial of its cell, side by side: where one
    repetition passed and another failed, what the agent did differently."""
    _require_view(request)
    try:
        trial = selectors.trial_get(run_id=run_id, trial_id=trial_id)
    except DomainError as exc:
        raise Http404 from exc
    columns = []
    for sibling in selectors.trial_cell_siblings(trial=trial):
        _, turns = _turns(sibling.trajectory or {})
        columns.append(
            {
                "trial": sibling,
                "turns": turns,
                "current": sibling.pk == trial.pk,
                "error_kind": _error_kind(sibling),
            }
        )
    return render(
        request,
        "evals/trial_cell.html",
        {"trial": trial, "run": trial.run, "columns": columns},
    )


def _require_view(request: HttpRequest) -> None:
    if not access.can_view_runs(request.user):
        raise Http404


@require_POST
def trial_ticket(request: HttpRequest, run_id: int, trial_id: int) -> HttpResponse:
    if not (access.can_view_runs(request.user) and access.can_ticket_trials(request.user)):
        raise Http404
    try:
        trial = selectors.trial_get(run_id=run_id, trial_id=trial_id)
        ticket = services.eval_trial_ticket_create(
            actor=request_operator(request), trial_id=trial.pk
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("evals:trial_detail", run_id, trial_id)
    messages.success(
        request,
        _("Ticket #%(id)s created in the %(queue)s queue.")
        % {"id": ticket.pk, "queue": ticket.queue.name},
    )
    return redirect("evals:trial_detail", run_id, trial_id)


@require_POST
def run_rerun_errors(request: HttpRequest, run_id: int) -> HttpResponse:
    """Re-run a finished run's infrastructure and simulator errors, then judge it again."""
    if not (access.can_view_runs(request.user) and access.can_start_runs(request.user)):
        raise Http404
    try:
        run = services.eval_run_rerun_errors(actor=request_operator(request), run_id=run_id)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("evals:run_detail", run_id)
    messages.success(request, _("Run #%(id)s: re-running its error trials.") % {"id": run.pk})
    return redirect("evals:run_detail", run.pk)
