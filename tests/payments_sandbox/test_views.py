"""The operator pages: approvals queue with rehearsals, payment and refund pages, step-up on
decisions, reconciliation."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from identity.models import Operator
from payments_sandbox.models import Payment, RefundStatus
from payments_sandbox.seed import seed
from payments_sandbox.services import refund_request
from tests.conftest import verified_client


def test_the_approvals_queue_shows_each_rehearsal(
    alice: Operator, bob: Operator, payment: Payment
) -> None:
    refund_request(actor=alice, payment_id=payment.pk, amount="10.13", reason="Cracked screen")
    page = verified_client(bob).get(reverse("payments_sandbox:approvals"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "10.13 USD" in text
    assert "Will be declined" in text
    # A predicted decline leaves the balances as they are: no "after" figure as if it would
    # succeed (issue 15 item 7), and a warning instead.
    assert "50.00 USD" in text and "39.87 USD" not in text
    assert "Predicted decline" in text
    refund_request(actor=alice, payment_id=payment.pk, amount="10.00", reason="Scratched")
    text = verified_client(bob).get(reverse("payments_sandbox:approvals")).content.decode()
    assert "29.87 USD" in text  # a refund predicted to succeed: refundable 39.87 -> 29.87


def test_pages_are_hidden_from_operators_without_a_payments_role(
    olga: Operator, payment: Payment
) -> None:
    client = verified_client(olga)
    for url in (
        reverse("payments_sandbox:approvals"),
        reverse("payments_sandbox:payment_list"),
        reverse("payments_sandbox:payment_detail", args=[payment.pk]),
        reverse("payments_sandbox:reconciliation"),
    ):
        assert client.get(url).status_code == 404, url


def test_an_agent_requests_a_refund_from_the_payment_page(
    alice: Operator, payment: Payment
) -> None:
    client = verified_client(alice)
    page = client.get(reverse("payments_sandbox:payment_detail", args=[payment.pk]))
    assert "Request a refund" in page.content.decode()
    response = client.post(
        reverse("payments_sandbox:refund_request", args=[payment.pk]),
        {"amount": "12.00", "reason": "Late"},
        follow=True,
    )
    assert "waits for an approver" in response.content.decode()
    assert payment.refunds.get().status == RefundStatus.PENDING_APPROVAL


def test_approving_from_the_page_requires_step_up(
    alice: Operator, bob: Operator, payment: Payment, django_capture_on_commit_callbacks: Any
) -> None:
    refund = refund_request(actor=alice, payment_id=payment.pk, amount="5.00", reason="r")
    url = reverse("payments_sandbox:refund_approve", args=[refund.pk])
    stale = verified_client(bob, stepped_up=False).post(url)
    assert stale.status_code == 302
    assert reverse("identity:stepup") in stale["Location"]
    refund.refresh_from_db()
    assert refund.status == RefundStatus.PENDING_APPROVAL
    with django_capture_on_commit_callbacks(execute=False):
        verified_client(bob).post(url, {"reason": "ok"})
    refund.refresh_from_db()
    assert refund.status == RefundStatus.APPROVED


def test_the_requester_sees_no_decision_form_on_their_own_refund(
    make_operator: Any, payment: Payment
) -> None:
    carol = make_operator("carol", ["agent", "approver"])
    refund = refund_request(actor=carol, payment_id=payment.pk, amount="5.00", reason="r")
    page = verified_client(carol).get(reverse("payments_sandbox:refund_detail", args=[refund.pk]))
    text = page.content.decode()
    assert "someone else must approve it" in text
    assert "Approve 5.00 USD" not in text


def test_seed_creates_every_refund_state_and_is_idempotent(
    alice: Operator, bob: Operator, sam: Operator, sandbox: Any
) -> None:
    sandbox()
    lines = seed(operators={"alice": alice, "bob": bob, "sam": sam})
    from payments_sandbox.models import Refund

    assert set(Refund.objects.values_list("status", flat=True)) == set(RefundStatus.values)
    assert set(Payment.objects.values_list("currency", flat=True)) >= {"USD", "EUR", "JPY", "KWD"}
    assert "mismatch" in lines[-1]
    count = Refund.objects.count()
    assert seed(operators={"alice": alice, "bob": bob, "sam": sam}) == [
        "Payments: demo payments already present."
    ]
    assert Refund.objects.count() == count


def test_the_reconciliation_page_lists_items_to_resolve(
    alice: Operator, bob: Operator, sam: Operator, sandbox: Any
) -> None:
    sandbox()
    seed(operators={"alice": alice, "bob": bob, "sam": sam})
    page = verified_client(sam).get(reverse("payments_sandbox:reconciliation"))
    text = page.content.decode()
    assert "Unknown to our ledger" in text
    assert "Resolve" in text
