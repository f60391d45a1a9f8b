"""Reconciliation finds each kind of mismatch between our ledger and the provider's, and an
operator resolves them."""

from __future__ import annotations

import datetime as dt
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from backoffice.errors import Conflict, Forbidden
from identity.models import AuditEvent, Operator
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


def test_the_management_command_reports_mismatches(executed: Any) -> None:
    refund = executed()
    SandboxProviderRefund.objects.update(status=ProviderRefundStatus.FAILED)
    out = StringIO()
    call_command(
        "payments", "reconcile", "--from", TODAY.isoformat(), "--to", TODAY.isoformat(), stdout=out
    )
    text = out.getvalue()
    assert "1 compared, 1 mismatch(es)" in text
    assert "status" in text and refund.provider_idempotency_key in text
