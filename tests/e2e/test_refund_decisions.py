"""Refund decisions (issue 15, item 7), in a real browser at a desk's and at a phone's width:
a rehearsal that predicts a decline warns before approval and shows no balances as if it
would succeed; the provider's decline is worded as the provider's; no empty panel after a
decision; a refund list filtered by state; the payment's timeline; a refund the AI agent
requested links to its ticket and conversation; the ticket shows the customer's payments."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator
from payments_sandbox.domain import Money
from payments_sandbox.models import Refund, RefundStatus
from payments_sandbox.services import payment_capture, refund_request
from tests.conftest import PASSWORD, make_service_token
from tests.e2e.conftest import read, screenshot, sign_in
from tickets.models import Ticket
from tickets.services import ticket_open_for_escalation

pytestmark = pytest.mark.django_db(transaction=True)


def _the_agents_refund(alice: Operator) -> dict[str, Any]:
    principal, _ = make_service_token(["refunds:request"])
    escalated = ticket_open_for_escalation(
        actor=principal,
        customer_name="Mei Lin",
        customer_email="mei.lin@example.com",
        category="dispute",
        reason="Customer disputes a charge for a cancelled order.",
        summary="Order cancelled within the window; the charge stayed.",
        transcript=[
            {"role": "customer", "content": "I cancelled order W123 and was still charged."},
            {"role": "assistant", "content": "I have asked for a refund of 10.13 EUR."},
        ],
        requested_action="Refund 10.13 EUR",
        conversation_id="conv-4242",
    )
    ticket = Ticket.objects.get(pk=escalated.ticket_id)
    payment = payment_capture(
        actor=None, amount=Money.parse("50.00", "EUR"), customer_email="Mei.Lin@example.com"
    )
    # The sandbox declines amounts whose minor units end in 13: the rehearsal predicts it.
    declined = refund_request(
        actor=principal,
        payment_id=payment.pk,
        amount="10.13",
        reason="Cancelled order still charged",
        ticket_id=ticket.pk,
    )
    fine = refund_request(
        actor=alice, payment_id=payment.pk, amount="5.00", reason="Goodwill for the delay"
    )
    return {"ticket": ticket, "payment": payment, "declined": declined, "fine": fine}


def _no_empty_cards(page: Any) -> None:
    for card in page.locator("main .card").all():
        assert card.inner_text().strip(), "an empty panel is on the page"


def test_a_predicted_decline_is_warned_of_and_the_provider_decline_is_the_providers(
    person_page: Any, alice: Operator, bob: Operator
) -> None:
    data = _the_agents_refund(alice)
    declined, payment = data["declined"], data["payment"]
    page = sign_in(person_page, bob, PASSWORD)

    page.goto("/payments/approvals/")
    read(page)
    row = page.locator("table.approvals tbody tr", has_text=f"#{declined.pk}")
    assert row.locator("[data-testid=decline-warning]").is_visible()
    # 50.00 - 10.13: a balance that only a successful refund would leave.
    assert "39.87" not in row.inner_text()
    screenshot(page, "refund-approvals-decline")

    page.goto(f"/payments/refunds/{declined.pk}/")
    read(page)
    assert page.locator("[data-testid=decline-warning]").is_visible()
    assert "39.87" not in page.inner_text("main")
    origin = page.inner_text("[data-testid=refund-origin]")
    # Bob approves refunds but does not work that queue: the ticket is named, not linked.
    assert f"#{data['ticket'].pk}" in origin and "conv-4242" in origin
    screenshot(page, "refund-predicted-decline")
    page.fill("#approve-reason", "Customer is right; try it")
    page.click("button:has-text('Approve 10.13 EUR anyway')")
    page.wait_for_selector(".flash-success")
    read(page)
    assert Refund.objects.get(pk=declined.pk).status == RefundStatus.FAILED
    decision = page.inner_text("[data-testid=decision]")
    assert "Declined by the provider after approval by Bob" in decision
    assert page.inner_text("[data-testid=refund-status]").strip() == "Declined by the provider"
    assert "Failed by" not in page.inner_text("main")
    _no_empty_cards(page)
    assert page.locator("main section.card").count() == 1  # no empty decision panel
    screenshot(page, "refund-declined-by-provider")

    # The refund list, filtered by state like Stripe's.
    page.goto("/payments/refunds/")
    read(page)
    assert page.locator("[data-testid=refund-row]").count() == 2
    page.click("[data-filter=failed]")
    read(page)
    rows = page.locator("[data-testid=refund-row]")
    assert rows.count() == 1 and f"#{declined.pk}" in rows.first.inner_text()
    page.click("[data-filter=needs_approval]")
    read(page)
    rows = page.locator("[data-testid=refund-row]")
    assert rows.count() == 1 and f"#{data['fine'].pk}" in rows.first.inner_text()
    screenshot(page, "refund-list-needs-approval")
    page.click("[data-filter=succeeded]")
    read(page)
    assert page.locator("[data-testid=refund-row]").count() == 0
    assert page.is_visible("text=No refunds in this state.")

    # The payment's timeline, oldest first.
    page.goto(f"/payments/{payment.pk}/")
    read(page)
    timeline = page.inner_text("[data-testid=payment-timeline]")
    steps = [
        "Captured 50.00 EUR",
        "Refund of 10.13 EUR requested",
        "Rehearsed: Will be declined",
        "Approved · Bob",
        "Declined by the provider",
    ]
    positions = [timeline.find(step) for step in steps]
    assert -1 not in positions, timeline
    assert positions == sorted(positions[:4]) + positions[4:]
    screenshot(page, "payment-timeline")


def test_the_agents_refund_links_to_its_conversation_and_the_ticket_shows_the_payments(
    person_page: Any, alice: Operator, sam: Operator
) -> None:
    data = _the_agents_refund(alice)
    ticket, declined = data["ticket"], data["declined"]
    page = sign_in(person_page, sam, PASSWORD)
    page.goto(f"/payments/refunds/{declined.pk}/")
    read(page)
    page.click("[data-testid=conversation-link]")
    page.wait_for_url(f"**/tickets/{ticket.pk}/#conversation")
    read(page)
    assert page.is_visible("text=I cancelled order W123 and was still charged.")
    card = page.locator("[data-testid=customer-payments]")
    text = card.inner_text()
    assert data["payment"].reference in text
    assert f"Refund #{declined.pk} · 10.13 EUR" in text
    assert f"Refund #{data['fine'].pk} · 5.00 EUR" in text
    assert "requested for this ticket" in text
    screenshot(page, "ticket-customer-payments")
    card.locator(f"text=Refund #{data['fine'].pk} · 5.00 EUR").click()
    page.wait_for_url(f"**/payments/refunds/{data['fine'].pk}/")
