"""Reconciliation finds each kind of mismatch between our ledger and the provider's, and an
operator resolves them."""

from __future__ import annotations

import datetime as dt
from io import StringIO
from typing import Any

import pytest
from django.utils import timezone

from backoffice.errors import Conflict, Forbidden
from identity.models import AuditEvent, Operator
from payments_sandbox.management.commands.payments import Command as PaymentsCommand
from payments_sandbox.models import (
    MismatchKind,
    Payment,
    ProviderRefundStatus,
    Refund,
    SandboxProviderRefund,
)
from payments_sandbox.services import (
    reconcile_run,
    reconciliation_item_resolve,
    refund_approve,
    refund_execute,
    refund_request,
)

TODAY = dt.date.today()


@pytest.fixture
def executed(
    alice: Operator,
    bob: Operator,
    payment: Payment,
    sandbox: Any,
    django_capture_on_commit_callbacks: Any,
) -> Any:
    adapter = sandbox()

    def make(amount: str = "10.00") -> Refund:
        refund = refund_request(actor=alice, payment_id=payment.pk, amount=amount, reason="r")
        with django_capture_on_commit_callbacks(execute=False):
            refund_approve(actor=bob, refund_id=refund.pk)
        return refund_execute(refund_id=refund.pk, adapter=adapter)

    return make


def run(sam: Operator) -> list[tuple[str, int | None]]:
    report = reconcile_run(actor=sam, date_from=TODAY, date_to=TODAY)
    return [(item.kind, item.refund_id) for item in report.items.all()]


def test_matching_ledgers_produce_no_items(sam: Operator, executed: Any) -> None:
    executed("10.00")
    executed("5.00")
    report = reconcile_run(actor=sam, date_from=TODAY, date_to=TODAY)
    assert report.compared == 2
    assert not report.items.exists()
    assert AuditEvent.objects.filter(action="reconciliation.run").count() == 1


def test_it_finds_a_refund_missing_at_the_provider(sam: Operator, executed: Any) -> None:
    refund = executed()
    SandboxProviderRefund.objects.all().delete()
    assert run(sam) == [(MismatchKind.MISSING, refund.pk)]


def test_it_finds_an_extra_refund_only_the_provider_knows(
    sam: Operator, executed: Any, payment: Payment
) -> None:
    executed()
    SandboxProviderRefund.objects.create(
        provider_refund_id="sre_stranger",
        idempotency_key="someone-else",
        provider_payment_id=payment.provider_payment_id,
        amount=700,
        currency="USD",
        status=ProviderRefundStatus.SUCCEEDED,
        created_at=timezone.now(),
    )
    assert run(sam) == [(MismatchKind.EXTRA, None)]


@pytest.mark.parametrize(
    ("change", "kind"),
    [
        ({"amount": 999}, MismatchKind.AMOUNT),
        ({"currency": "EUR"}, MismatchKind.CURRENCY),
        ({"status": ProviderRefundStatus.FAILED}, MismatchKind.STATUS),
    ],
)
def test_it_finds_a_refund_both_sides_know_but_disagree_on(
    sam: Operator, executed: Any, change: dict[str, Any], kind: str
) -> None:
    refund = executed()
    SandboxProviderRefund.objects.update(**change)
    assert run(sam) == [(kind, refund.pk)]


def test_an_item_is_resolved_once_with_a_note(sam: Operator, bob: Operator, executed: Any) -> None:
    executed()
    SandboxProviderRefund.objects.update(amount=1)
    report = reconcile_run(actor=sam, date_from=TODAY, date_to=TODAY)
    item = report.items.get()
    with pytest.raises(Forbidden):
        reconciliation_item_resolve(actor=bob, item_id=item.pk, note="fine")
    item = reconciliation_item_resolve(actor=sam, item_id=item.pk, note="Provider corrected it")
    assert item.resolved_by == sam and item.is_resolved
    with pytest.raises(Conflict):
        reconciliation_item_resolve(actor=sam, item_id=item.pk, note="again")


def test_refunds_outside_the_period_are_not_compared(sam: Operator, executed: Any) -> None:
    executed()
    report = reconcile_run(
        actor=sam, date_from=TODAY - dt.timedelta(days=10), date_to=TODAY - dt.timedelta(days=9)
    )
    assert report.compared == 0


def _reconcile_exit(*args: str) -> tuple[int, str, str]:
    """Run `manage.py payments reconcile ARGS` the way cron does (`run_from_argv`, which
    turns a CommandError into the process's exit status); return (status, stdout, stderr)."""
    out, err = StringIO(), StringIO()
    with pytest.raises(SystemExit) as exit_:
        PaymentsCommand(stdout=out, stderr=err).run_from_argv(
            ["manage.py", "payments", "reconcile", *args]
        )
        raise SystemExit(0)  # it returned: a zero exit
    code = exit_.value.code
    assert isinstance(code, int)
    return code, out.getvalue(), err.getvalue()


def test_the_management_command_reports_mismatches_and_exits_1(executed: Any) -> None:
    # A nightly cron job would otherwise see success while money disagrees with the provider.
    refund = executed()
    SandboxProviderRefund.objects.update(status=ProviderRefundStatus.FAILED)
    code, out, err = _reconcile_exit("--from", TODAY.isoformat(), "--to", TODAY.isoformat())
    assert code == 1
    assert "1 compared, 1 mismatch(es)" in out
    assert "status" in out and refund.provider_idempotency_key in out
    assert "1 mismatch(es) in reconciliation" in err


def test_the_management_command_exits_0_when_everything_agrees(executed: Any) -> None:
    executed()
    code, out, err = _reconcile_exit("--from", TODAY.isoformat(), "--to", TODAY.isoformat())
    assert (code, err) == (0, "")
    assert "1 compared, 0 mismatch(es)" in out


def test_the_management_command_exits_2_when_it_cannot_reconcile(
    db: None, capsys: pytest.CaptureFixture[str]
) -> None:
    too_long = (TODAY - dt.timedelta(days=5000)).isoformat()
    code, _, err = _reconcile_exit("--from", too_long, "--to", TODAY.isoformat())
    assert code == 2 and err
    code, _, _ = _reconcile_exit("--from", "yesterday", "--to", TODAY.isoformat())
    assert code == 2 and "is not a date" in capsys.readouterr().err


def test_the_exit_statuses_are_in_the_commands_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        PaymentsCommand().run_from_argv(["manage.py", "payments", "reconcile", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "0 everything agrees, 1 mismatches found" in help_text
