"""The permission matrix: every page and every API operation by every role, with the answer
each must get, in one table.

Rows come from the URLconf (`get_resolver()`; each page asked with GET and with an empty POST)
and from the API schema (each operation with an empty JSON body). A URL pattern or an API
operation without a row fails the suite, and the failure prints the line to add, filled with
what the app answers today: read it before pasting it, since a wrong answer pasted here is a
hole written down as a rule.

Columns (tests/security/world.py has who they are):
  anon    no session                     half    password accepted, OTP not yet (agent Alice)
  agent   Alice                          approver  Bob            supervisor  Sam
  admin   Ada                            auditor   Audrey         release     Rita (release manager)
  outsider Olga: 2FA, no role            token   the AI agent's runtime: every API scope
  token0  an API token with no scope

Answers: a status code, or where a redirect goes when it is a gate: login, otp (the OTP
challenge), stepup (re-verify before a sensitive action). A page POST sends a valid form (see
matrix.page_body), and since a page answers a form with a redirect whether it acted or not,
its answer says which: `done` (it changed something: an audit event, or only a success
message) or `error` (nothing changed and it flashed an error or a warning). So on a row where
one role gets `done`, `error` for another is that role being refused; where `error` comes from
the world's state instead, a comment says so. 403 where the role may not act at all, 404 where
the object must not be seen to exist; every request is rolled back.

The world is the demo seed: the ticket is in Returns (Alice's and Sam's queue, not Bob's) and
is Alice's, the merge target is a second ticket of its customer, the refund awaits approval,
the operator pages point at Carol, the session revoked is Carol's, the reset approved or
cancelled is one of Erin's that Adam (a second admin) asked for, the run is Rita's.
"""

from __future__ import annotations

import pytest

from tests.security import matrix, world
from tests.security.world import ROLES

MATRIX = """
# entry                                      method anon   half   agent  approv superv admin  audit  releas outsid token  token0
# Pages (GET, and POST with an empty form)
api-docs                                     GET    401    401    200    200    200    200    200    200    200    200    200
api-docs                                     POST   401    401    405    405    405    405    405    405    405    405    405
api-schema                                   GET    401    401    200    200    200    200    200    200    200    200    200
api-schema                                   POST   401    401    405    405    405    405    405    405    405    405    405
evals:compare                                GET    login  otp    404    404    404    404    302    302    404    login  login
evals:compare                                POST   login  otp    405    405    405    405    405    405    405    login  login
evals:run_detail                             GET    login  otp    404    404    404    404    200    200    404    login  login
evals:run_detail                             POST   login  otp    405    405    405    405    405    405    405    login  login
evals:run_export                             GET    login  otp    404    404    404    404    200    200    404    login  login
evals:run_export                             POST   login  otp    405    405    405    405    405    405    405    login  login
evals:run_import                             GET    login  otp    405    405    405    405    405    405    405    login  login
# run_import: `error` for release: the empty form has no file to import (the world's state)
evals:run_import                             POST   login  otp    404    404    404    404    404    error  404    login  login
evals:run_list                               GET    login  otp    404    404    404    404    200    200    404    login  login
evals:run_list                               POST   login  otp    405    405    405    405    405    405    405    login  login
evals:run_progress                           GET    login  otp    404    404    404    404    200    200    404    login  login
evals:run_progress                           POST   login  otp    405    405    405    405    405    405    405    login  login
evals:run_report_file                        GET    login  otp    404    404    404    404    200    200    404    login  login
evals:run_report_file                        POST   login  otp    405    405    405    405    405    405    405    login  login
evals:run_rerun_errors                       GET    login  otp    405    405    405    405    405    405    405    login  login
# run_rerun_errors, run_resume: `error` for release: the world's run has no error trial and
# is completed (the world's state)
evals:run_rerun_errors                       POST   login  otp    404    404    404    404    404    error  404    login  login
evals:run_resume                             GET    login  otp    405    405    405    405    405    405    405    login  login
evals:run_resume                             POST   login  otp    404    404    404    404    404    error  404    login  login
evals:run_selftest                           GET    login  otp    405    405    405    405    405    405    405    login  login
evals:run_selftest                           POST   login  otp    404    404    404    404    404    done   404    login  login
evals:run_start                              GET    login  otp    405    405    405    405    405    405    405    login  login
evals:run_start                              POST   login  otp    404    404    404    404    404    400    404    login  login
evals:run_trial_list                         GET    login  otp    404    404    404    404    200    200    404    login  login
evals:run_trial_list                         POST   login  otp    405    405    405    405    405    405    405    login  login
evals:selftest_detail                        GET    login  otp    404    404    404    404    200    200    404    login  login
evals:selftest_detail                        POST   login  otp    405    405    405    405    405    405    405    login  login
evals:trial_cell                             GET    login  otp    404    404    404    404    200    200    404    login  login
evals:trial_cell                             POST   login  otp    405    405    405    405    405    405    405    login  login
evals:trial_detail                           GET    login  otp    404    404    404    404    200    200    404    login  login
evals:trial_detail                           POST   login  otp    405    405    405    405    405    405    405    login  login
evals:trial_ticket                           GET    login  otp    405    405    405    405    405    405    405    login  login
evals:trial_ticket                           POST   login  otp    404    404    404    404    404    done   404    login  login
favicon                                      GET    200    200    200    200    200    200    200    200    200    200    200
favicon                                      POST   405    405    405    405    405    405    405    405    405    405    405
healthz                                      GET    200    200    200    200    200    200    200    200    200    200    200
healthz                                      POST   405    405    405    405    405    405    405    405    405    405    405
home                                         GET    login  otp    200    200    200    200    200    200    200    login  login
home                                         POST   login  otp    405    405    405    405    405    405    405    login  login
identity:audit_export                        GET    login  otp    403    403    403    403    200    403    403    login  login
identity:audit_export                        POST   login  otp    405    405    405    405    405    405    405    login  login
identity:audit_list                          GET    login  otp    403    403    403    403    200    403    403    login  login
identity:audit_list                          POST   login  otp    405    405    405    405    405    405    405    login  login
identity:backup_codes_regenerate             GET    login  otp    405    405    405    405    405    405    405    login  login
identity:backup_codes_regenerate             POST   login  otp    done   done   done   done   done   done   done   login  login
identity:enroll                              GET    login  otp    otp    otp    otp    otp    otp    otp    otp    login  login
identity:enroll                              POST   login  otp    otp    otp    otp    otp    otp    otp    otp    login  login
identity:language                            GET    405    405    405    405    405    405    405    405    405    405    405
identity:language                            POST   400    400    400    400    400    400    400    400    400    400    400
identity:login                               GET    200    200    302    302    302    302    302    302    302    200    200
identity:login                               POST   200    200    302    302    302    302    302    302    302    200    200
identity:logout                              GET    405    405    405    405    405    405    405    405    405    405    405
identity:logout                              POST   login  login  login  login  login  login  login  login  login  login  login
identity:operator_create                     GET    login  otp    403    403    403    200    403    403    403    login  login
identity:operator_create                     POST   login  otp    403    403    403    200    403    403    403    login  login
identity:operator_deactivate                 GET    login  otp    405    405    405    405    405    405    405    login  login
identity:operator_deactivate                 POST   login  otp    403    403    403    done   403    403    403    login  login
identity:operator_detail                     GET    login  otp    403    403    403    200    403    403    403    login  login
identity:operator_detail                     POST   login  otp    405    405    405    405    405    405    405    login  login
identity:operator_force_logout               GET    login  otp    405    405    405    405    405    405    405    login  login
identity:operator_force_logout               POST   login  otp    403    403    403    done   403    403    403    login  login
identity:operator_list                       GET    login  otp    403    403    403    200    403    403    403    login  login
identity:operator_list                       POST   login  otp    405    405    405    405    405    405    405    login  login
identity:operator_reset_2fa                  GET    login  otp    405    405    405    405    405    405    405    login  login
identity:operator_reset_2fa                  POST   login  otp    403    403    403    done   403    403    403    login  login
identity:credential_reset_approve            GET    login  otp    405    405    405    405    405    405    405    login  login
# credential_reset_*: the reset Adam asked for (Ada, the admin, may approve it; the one she
# asked for she may not: test_the_admin_who_asked_for_a_reset_cannot_approve_it below)
identity:credential_reset_approve            POST   login  otp    403    403    403    done   403    403    403    login  login
identity:credential_reset_cancel             GET    login  otp    405    405    405    405    405    405    405    login  login
identity:credential_reset_cancel             POST   login  otp    403    403    403    done   403    403    403    login  login
identity:operator_reset_password             GET    login  otp    405    405    405    405    405    405    405    login  login
identity:operator_reset_password             POST   login  otp    403    403    403    done   403    403    403    login  login
identity:operator_roles                      GET    login  otp    405    405    405    405    405    405    405    login  login
identity:operator_roles                      POST   login  otp    403    403    403    done   403    403    403    login  login
identity:otp_challenge                       GET    login  200    302    302    302    302    302    302    302    login  login
identity:otp_challenge                       POST   login  200    302    302    302    302    302    302    302    login  login
identity:password_change                     GET    login  otp    200    200    200    200    200    200    200    login  login
identity:password_change                     POST   login  otp    200    200    200    200    200    200    200    login  login
identity:security                            GET    login  otp    200    200    200    200    200    200    200    login  login
identity:security                            POST   login  otp    405    405    405    405    405    405    405    login  login
identity:session_revoke                      GET    login  otp    405    405    405    405    405    405    405    login  login
identity:session_revoke                      POST   login  otp    404    404    404    404    404    404    404    login  login
identity:stepup                              GET    login  otp    200    200    200    200    200    200    200    login  login
identity:stepup                              POST   login  otp    200    200    200    200    200    200    200    login  login
identity:token_create                        GET    login  otp    403    403    403    200    403    403    403    login  login
identity:token_create                        POST   login  otp    403    403    403    200    403    403    403    login  login
identity:token_list                          GET    login  otp    403    403    403    200    403    403    403    login  login
identity:token_list                          POST   login  otp    405    405    405    405    405    405    405    login  login
identity:token_revoke                        GET    login  otp    405    405    405    405    405    405    405    login  login
identity:token_revoke                        POST   login  otp    403    403    403    done   403    403    403    login  login
payments_sandbox:approvals                   GET    login  otp    200    200    200    404    200    404    404    login  login
payments_sandbox:approvals                   POST   login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:payment_detail              GET    login  otp    200    200    200    404    200    404    404    login  login
payments_sandbox:payment_detail              POST   login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:payment_list                GET    login  otp    200    200    200    404    200    404    404    login  login
payments_sandbox:payment_list                POST   login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:reconciliation              GET    login  otp    404    200    200    404    200    404    404    login  login
payments_sandbox:reconciliation              POST   login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:reconciliation_resolve      GET    login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:reconciliation_resolve      POST   login  otp    404    error  done   404    error  404    404    login  login
payments_sandbox:reconciliation_run          GET    login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:reconciliation_run          POST   login  otp    404    error  done   404    error  404    404    login  login
payments_sandbox:refund_approve              GET    login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:refund_approve              POST   login  otp    error  done   error  404    error  404    404    login  login
payments_sandbox:refund_cancel               GET    login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:refund_cancel               POST   login  otp    done   error  done   404    error  404    404    login  login
payments_sandbox:refund_detail               GET    login  otp    200    200    200    404    200    404    404    login  login
payments_sandbox:refund_detail               POST   login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:refund_list                 GET    login  otp    200    200    200    404    200    404    404    login  login
payments_sandbox:refund_list                 POST   login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:refund_reject               GET    login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:refund_reject               POST   login  otp    error  done   error  404    error  404    404    login  login
payments_sandbox:refund_request              GET    login  otp    405    405    405    405    405    405    405    login  login
payments_sandbox:refund_request              POST   login  otp    done   error  done   404    error  404    404    login  login
tickets:assign                               GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:assign                               POST   login  otp    error  404    done   404    404    404    404    login  login
tickets:bulk                                 GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:bulk                                 POST   login  otp    done   404    done   404    404    error  404    login  login
tickets:customer_lookup                      GET    login  otp    200    404    200    404    404    200    404    login  login
tickets:customer_lookup                      POST   login  otp    405    405    405    405    405    405    405    login  login
tickets:detail                               GET    login  otp    200    404    200    404    404    404    404    login  login
tickets:detail                               POST   login  otp    200    404    200    404    404    404    404    login  login
tickets:duty                                 GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:duty                                 POST   login  otp    done   404    done   404    404    done   404    login  login
tickets:inbox                                GET    login  otp    200    302    200    302    302    200    302    login  login
tickets:inbox                                POST   login  otp    405    405    405    405    405    405    405    login  login
tickets:member_duty                          GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:member_duty                          POST   login  otp    403    403    done   error  403    403    403    login  login
tickets:merge                                GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:merge                                POST   login  otp    error  404    done   404    404    404    404    login  login
tickets:new                                  GET    login  otp    200    404    200    404    404    200    404    login  login
tickets:new                                  POST   login  otp    200    404    200    404    404    200    404    login  login
tickets:note                                 GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:note                                 POST   login  otp    done   404    done   404    404    404    404    login  login
tickets:note_edit                            GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:note_edit                            POST   login  otp    done   404    done   404    404    404    404    login  login
tickets:notifications                        GET    login  otp    200    404    200    404    404    200    404    login  login
tickets:notifications                        POST   login  otp    405    405    405    405    405    405    405    login  login
tickets:notifications_read                   GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:notifications_read                   POST   login  otp    done   404    done   404    404    done   404    login  login
tickets:presence                             GET    login  otp    200    404    200    404    404    404    404    login  login
tickets:presence                             POST   login  otp    405    405    405    405    405    405    405    login  login
tickets:priority                             GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:priority                             POST   login  otp    done   404    done   404    404    404    404    login  login
tickets:queue_edit                           GET    login  otp    403    403    200    200    403    403    403    login  login
tickets:queue_edit                           POST   login  otp    403    403    400    400    403    403    403    login  login
tickets:queue_list                           GET    login  otp    403    403    200    200    403    403    403    login  login
tickets:queue_list                           POST   login  otp    405    405    405    405    405    405    405    login  login
tickets:queue_new                            GET    login  otp    403    403    200    200    403    403    403    login  login
tickets:queue_new                            POST   login  otp    403    403    400    400    403    403    403    login  login
tickets:reply                                GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:reply                                POST   login  otp    done   404    done   404    404    404    404    login  login
tickets:status                               GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:status                               POST   login  otp    done   404    done   404    404    404    404    login  login
tickets:tags                                 GET    login  otp    405    405    405    405    405    405    405    login  login
tickets:tags                                 POST   login  otp    done   404    done   404    404    404    404    login  login
tickets:take                                 GET    login  otp    405    405    405    405    405    405    405    login  login
# take: `error` for the agent: Alice already owns the ticket (the world's state); assign:
# `error` for the agent is the refusal (only a supervisor reassigns an owned ticket)
tickets:take                                 POST   login  otp    error  404    done   404    404    404    404    login  login
# API operations (from the schema; a valid body, an Idempotency-Key)
/api/v1/escalations                          POST   401    401    403    403    403    403    403    403    403    201    403
/api/v1/evals/runs                           GET    401    401    403    403    403    403    200    200    403    200    403
/api/v1/evals/runs/start                     POST   401    401    403    403    403    403    403    202    403    202    403
/api/v1/evals/runs/{run_id}                  GET    401    401    403    403    403    403    200    200    403    200    403
/api/v1/evals/runs/{run_id}/resume           POST   401    401    403    403    403    403    403    409    403    409    403
/api/v1/identity/whoami/                     GET    401    401    200    200    200    200    200    200    200    200    200
/api/v1/notifications                        GET    401    401    200    200    200    200    200    200    200    403    403
/api/v1/notifications/read                   POST   401    401    200    200    200    200    200    200    200    403    403
/api/v1/payments                             GET    401    401    200    200    200    403    200    403    403    200    403
/api/v1/payments/{payment_id}                GET    401    401    200    200    200    403    200    403    403    200    403
/api/v1/reconciliation/items/{item_id}/resolve POST   401    401    403    403    200    403    403    403    403    403    403
/api/v1/reconciliation/reports               GET    401    401    403    200    200    403    200    403    403    403    403
/api/v1/reconciliation/reports/{report_id}   GET    401    401    403    200    200    403    200    403    403    403    403
/api/v1/reconciliation/run                   POST   401    401    403    403    201    403    403    403    403    403    403
/api/v1/refunds                              GET    401    401    200    200    200    403    200    403    403    200    403
/api/v1/refunds/preview                      POST   401    401    200    403    200    403    403    403    403    200    403
/api/v1/refunds/request                      POST   401    401    201    403    201    403    403    403    403    201    403
/api/v1/refunds/{refund_id}                  GET    401    401    200    200    200    403    200    403    403    200    403
/api/v1/refunds/{refund_id}/approve          POST   401    401    403    200    403    403    403    403    403    403    403
/api/v1/refunds/{refund_id}/cancel           POST   401    401    200    403    200    403    403    403    403    403    403
/api/v1/refunds/{refund_id}/reject           POST   401    401    403    200    403    403    403    403    403    403    403
/api/v1/tickets                              GET    401    401    200    200    200    200    200    200    200    200    403
/api/v1/tickets/{ticket_id}                  GET    401    401    200    404    200    404    404    404    404    404    403
/api/v1/tickets/{ticket_id}/assignment       POST   401    401    400    404    200    404    404    404    404    403    403
/api/v1/tickets/{ticket_id}/customer-messages POST   401    401    201    404    201    404    404    404    404    404    403
/api/v1/tickets/{ticket_id}/merge            POST   401    401    403    404    200    404    404    404    404    403    403
/api/v1/tickets/{ticket_id}/notes            POST   401    401    201    404    201    404    404    404    404    403    403
/api/v1/tickets/{ticket_id}/notes/{note_id}  PATCH  401    401    200    404    200    404    404    404    404    403    403
/api/v1/tickets/{ticket_id}/priority         POST   401    401    200    404    200    404    404    404    404    403    403
/api/v1/tickets/{ticket_id}/replies          POST   401    401    201    404    201    404    404    404    404    403    403
/api/v1/tickets/{ticket_id}/status           POST   401    401    200    404    200    404    404    404    404    403    403
/api/v1/tickets/{ticket_id}/tags             PUT    401    401    200    404    200    404    404    404    404    403    403"""


def parse(table: str) -> dict[tuple[str, str], tuple[str, ...]]:
    rows: dict[tuple[str, str], tuple[str, ...]] = {}
    for number, line in enumerate(table.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, method, *answers = line.split()
        assert len(answers) == len(ROLES), f"MATRIX line {number} needs {len(ROLES)} answers"
        assert (key, method) not in rows, f"MATRIX line {number} repeats {key} {method}"
        rows[(key, method)] = tuple(answers)
    return rows


EXPECTED = parse(MATRIX)


@pytest.mark.django_db
def test_the_admin_who_asked_for_a_reset_cannot_approve_it() -> None:
    """Four eyes, as the matrix sees it: Ada approves the reset Adam asked for (the row above
    says `done`), and the same POST on the reset she asked for herself changes nothing."""
    w = world.build()
    approve = matrix.Entry("identity:credential_reset_approve", "POST", True, ("pk",))
    assert matrix.ask(approve, "admin", w) == "done"
    assert matrix.ask(approve, "admin", w, pk=w.ids["own_reset"]) == "error"


def test_every_api_url_is_in_the_schema() -> None:
    assert matrix.unschemed_api() == [], "API URL patterns missing from the schema"


@pytest.mark.django_db
def test_every_page_and_api_operation_has_a_row() -> None:
    entries = matrix.entries()
    missing = [e for e in entries if (e.key, e.method) not in EXPECTED]
    if missing:
        w = world.build()
        lines = "\n".join(matrix.row(e, matrix.observe(e, w)) for e in missing)
        pytest.fail(
            f"{len(missing)} page(s)/API operation(s) have no row in MATRIX "
            "(tests/security/test_permission_matrix.py). Add these lines, after checking each "
            f"answer is the one that role should get:\n{lines}"
        )
    stale = sorted(set(EXPECTED) - {(e.key, e.method) for e in entries})
    assert stale == [], "MATRIX rows for pages or operations that no longer exist"


@pytest.mark.django_db
def test_every_role_gets_the_answer_the_matrix_states() -> None:
    w = world.build()
    wrong = []
    for entry in matrix.entries():
        expected = EXPECTED.get((entry.key, entry.method))
        if expected is None:
            continue  # reported by the test above
        got = matrix.observe(entry, w)
        for role, want, have in zip(ROLES, expected, got, strict=True):
            if want != have:
                wrong.append(f"{entry.key} {entry.method} as {role}: expected {want}, got {have}")
    assert wrong == []
