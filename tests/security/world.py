"""One lived-in backoffice for the permission matrix and schemathesis: the demo seed (operators
of every role with 2FA, queues, tickets with notes, payments, refunds pending and executed),
an outsider with 2FA and no role, a second admin (Adam) and two resets of Erin's way in
waiting for approval (one Adam asked for, one Ada asked for), a failing go-live run with
trials, a reconciliation report with an open item, and two API tokens of the AI agent's
runtime (every scope, and none).

`world.ids` names the object each URL parameter points at, so detail pages answer about a
real row (200 for who may see it, 404 or 403 for who may not) instead of 404 for everyone.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from evals import services as evals_services
from evals.models import EvalRun
from evals.services.suites import suite_from_mapping
from identity import roles, scopes
from identity import services as identity_services
from identity.models import ApiToken, CredentialKind, Operator, OperatorSession, Role
from payments_sandbox.models import Refund, RefundStatus, SandboxProviderRefund
from payments_sandbox.services.reconciliation import reconcile_run
from tests.conftest import make_service_token, verified_client
from tests.evals.conftest import store_selftest, suite_dict
from tickets.models import Message, MessageKind, Ticket
from tickets.services.intake import ticket_open_for_customer

# Who asks. Each is a column of the matrix, in this order.
ROLES = (
    "anon",  # no session
    "half",  # password accepted, OTP not yet (Alice, an agent)
    "agent",
    "approver",
    "supervisor",
    "admin",
    "auditor",
    "release",
    "outsider",  # signed in with 2FA, no role
    "token",  # the AI agent's runtime: an API token with every registered scope
    "token0",  # an API token with no scope
)
ROLE_USERNAMES = {
    "half": "alice",
    "agent": "alice",
    "approver": "bob",
    "supervisor": "sam",
    "admin": "ada",
    "auditor": "audrey",
    "release": "rita",
    "outsider": "olga",
}


@dataclass
class World:
    ids: dict[str, int]
    clients: dict[str, Client]
    raw_tokens: dict[str, str] = field(default_factory=dict)

    def client(self, role: str) -> Client:
        return self.clients[role]


def _outsider() -> Operator:
    olga = Operator.objects.create_user(
        username="olga", email="olga@example.test", password="x" * 20, display_name="Olga"
    )
    TOTPDevice.objects.create(user=olga, name="default", confirmed=True)
    return olga


def _second_admin() -> Operator:
    """Adam: an admin with 2FA whom Ada neither created nor gave roles to, so that each can
    approve what the other asks for (four eyes)."""
    adam = Operator.objects.create_user(
        username="adam", email="adam@example.test", password="x" * 20, display_name="Adam"
    )
    roles.grant(adam, Role.ADMIN)
    TOTPDevice.objects.create(user=adam, name="default", confirmed=True)
    return adam


def _failing_run(rita: Operator) -> EvalRun:
    suite = suite_from_mapping(
        suite_dict(agent={"model": "sandbox/fault:skip_confirmation"}, guard_mode="observe")
    )
    run = evals_services.eval_run_create(actor=rita, suite=suite)
    return evals_services.eval_run_execute(actor=rita, run_id=run.pk)


def _reconciliation_item(sam: Operator) -> tuple[int, int]:
    # The provider disagrees on one executed refund's amount: one open mismatch.
    SandboxProviderRefund.objects.filter(
        pk=SandboxProviderRefund.objects.order_by("pk").values("pk")[:1]
    ).update(amount=1)
    today = timezone.localdate()
    report = reconcile_run(actor=sam, date_from=today - dt.timedelta(days=30), date_to=today)
    item = report.items.order_by("pk").first()
    assert item is not None, "the world needs one reconciliation mismatch"
    return report.pk, item.pk


def build() -> World:
    """Build the world in the current test database (call inside a django_db test)."""
    roles.sync_roles()
    call_command("seed_demo", stdout=_Null())
    _outsider()
    adam = _second_admin()
    operators = {o.username: o for o in Operator.objects.all()}
    # Resets of Erin's way in, waiting for a second admin: one Adam asked for (Ada, the admin
    # column, may approve it) and one Ada asked for (she may not).
    erin = operators["erin"]
    reset = identity_services.credential_reset_request(
        actor=adam, operator=erin, kind=CredentialKind.TOTP, reason="lost phone"
    )
    own_reset = identity_services.credential_reset_request(
        actor=operators["ada"], operator=erin, kind=CredentialKind.PASSWORD, reason="forgot it"
    )
    run = _failing_run(operators["rita"])
    trial = run.trials.order_by("pk").first()
    assert trial is not None
    report_id, item_id = _reconciliation_item(operators["sam"])

    # Alice's queue: a ticket an agent works, with an internal note (Alice's where there is).
    notes = Message.objects.filter(
        kind=MessageKind.INTERNAL_NOTE, ticket__queue__slug="returns"
    ).order_by("-author__username", "pk")
    note = notes.filter(author__username="alice").first() or notes.first()
    ticket = (
        note.ticket if note is not None else Ticket.objects.filter(queue__slug="returns").first()
    )
    assert ticket is not None
    refund = Refund.objects.filter(status=RefundStatus.PENDING_APPROVAL).order_by("pk").first()
    assert refund is not None
    _, raw_all = make_service_token(list(scopes.known()), username="agent-runtime-all")
    _, raw_none = make_service_token([], username="agent-runtime-none")
    token = ApiToken.objects.order_by("pk").first()
    assert token is not None

    clients: dict[str, Client] = {"anon": Client()}
    half = Client()
    half.force_login(operators["alice"])  # password only: no OTP device in the session
    clients["half"] = half
    for role, username in ROLE_USERNAMES.items():
        if role != "half":
            clients[role] = verified_client(operators[username], api=True)
    for role, raw in (("token", raw_all), ("token0", raw_none)):
        client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
        clients[role] = client
    # A session of Carol's that someone might try to revoke.
    carol_session = OperatorSession.objects.create(
        session_key="matrix-carol-session", operator=operators["carol"]
    )
    # A second ticket of the same customer in the same queue: what a merge may join.
    other = ticket_open_for_customer(
        actor=operators["sam"],
        subject="Same customer, second ticket",
        queue_id=ticket.queue_id,
        customer_id=ticket.customer_id,
        customer_message="Writing again about the same order.",
    )
    ids = {
        "ticket_id": ticket.pk,
        "version": ticket.version,
        "other_ticket_id": other.pk,
        "other_version": other.version,
        "note_id": note.pk if note is not None else 1,
        "queue_id": ticket.queue_id,
        "payment_id": refund.payment_id,
        "refund_id": refund.pk,
        "run_id": run.pk,
        "trial_id": trial.pk,
        "selftest_id": store_selftest().pk,
        "item_id": item_id,
        "report_id": report_id,
        # `pk` differs per page: see PK_PARAM below.
        "operator": operators["carol"].pk,
        "token": token.pk,
        "session": carol_session.pk,
        "reset": reset.pk,
        "own_reset": own_reset.pk,
        "alice": operators["alice"].pk,
        "carol": operators["carol"].pk,
    }
    return World(ids=ids, clients=clients, raw_tokens={"token": raw_all, "token0": raw_none})


# The object a page's `<int:pk>` names.
PK_PARAM = {
    "identity:session_revoke": "session",
    "identity:token_revoke": "token",
    "identity:credential_reset_approve": "reset",
    "identity:credential_reset_cancel": "reset",
}


def kwargs_for(name: str, params: list[str], ids: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for param in params:
        if param == "pk":
            out[param] = ids[PK_PARAM.get(name, "operator")]
        else:
            out[param] = ids[param]
    return out


class _Null:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None
