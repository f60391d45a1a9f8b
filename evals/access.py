"""Who may see or start go-live runs. Views, the API, the command and the services ask here.

Release managers start, resume and compare runs and see every report; auditors and
supervisors may read reports. Service principals (CI) carry no roles: the API admits them by
token scope (`evals:run` starts runs and reads them, `evals:read` only reads), and the
command line records them as the operator of the runs they start.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from backoffice.errors import Forbidden

VIEW_RUN = "evals.view_evalrun"
START_RUN = "evals.start_evalrun"
TICKET_TRIAL = "evals.ticket_trialresult"

SCOPES = {
    "evals:run": "Start go-live runs and read their reports (CI).",
    "evals:read": "Read go-live runs and their reports.",
}


def is_service(user: Any) -> bool:
    return bool(getattr(user, "is_service_principal", False))


def _human_with(user: Any, perm: str) -> bool:
    return bool(user.is_authenticated and not is_service(user) and user.has_perm(perm))


def can_view_runs(user: Any) -> bool:
    return _human_with(user, VIEW_RUN)


def can_start_runs(user: Any) -> bool:
    return _human_with(user, START_RUN)


def can_ticket_trials(user: Any) -> bool:
    return _human_with(user, TICKET_TRIAL)


def may_start(operator: Any) -> bool:
    """What the services check. A service principal reaches them only through the API (after
    its token's `evals:run` scope was checked) or the command line (whoever runs manage.py
    already holds the database; `--as` only names who is accountable), so it is accepted as
    itself; a human must hold the release-manager permission."""
    return is_service(operator) or can_start_runs(operator)


def ensure_start(operator: Any) -> None:
    if not may_start(operator):
        raise Forbidden(gettext("Only a release manager may start go-live runs."))


def ensure_ticket(operator: Any) -> None:
    if not can_ticket_trials(operator):
        raise Forbidden(gettext("Only a release manager may turn a trial into a ticket."))
