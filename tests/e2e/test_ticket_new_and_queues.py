"""The new-ticket page and queue administration in a real browser: an agent logs a phone
call for a customer on file (found by the htmx picker) and lands on the routed ticket; a
supervisor adds an on-duty member to a queue, which routes its waiting ticket."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tickets.conftest import join
from tickets import services
from tickets.models import Customer, Queue, Ticket

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_agent_opens_a_ticket_for_a_customer_on_file(
    logged_in_page: Any, alice: Any, sam: Any
) -> None:
    queue = Queue.objects.create(name="Billing", slug="billing")
    join(alice, queue, on_duty=True)
    marco = Customer.objects.create(name="Marco Rossi", email="marco@example.test")
    page = logged_in_page(alice)
    page.goto("/tickets/")
    page.click("[data-testid=new-ticket-link]")
    page.wait_for_url("**/tickets/new/")

    # An empty submission explains what is missing and creates nothing.
    page.click("#ticket-new-form button[type=submit]")
    page.wait_for_selector("[data-testid=error-subject]")
    assert "an internal note, or both" in page.inner_text("[data-testid=error-customer_message]")
    assert Ticket.objects.count() == 0

    page.fill("#customer-q", "marco@")
    pick = f"[data-testid=customer-matches] input[value='{marco.pk}']"
    page.wait_for_selector(pick)
    page.check(pick)
    page.select_option("#id_channel", "phone")
    page.fill("#id_subject", "Charged twice, called in")
    page.fill("#id_customer_message", "I see two charges of EUR 129 for order 88123.")
    page.fill("#id_internal_note", "Verified identity on the phone. @sam FYI")
    page.select_option("#id_priority", "urgent")
    page.fill("#id_tags", "phone, double-charge")
    page.click("#ticket-new-form button[type=submit]")

    ticket = Ticket.objects.get(subject="Charged twice, called in")
    page.wait_for_url(f"**/tickets/{ticket.pk}/")
    assert ticket.customer == marco and ticket.channel == "phone"
    assert page.inner_text("[data-testid=ticket-owner]") == "Alice"  # routed: she is on duty
    assert f"Ticket #{ticket.pk} opened, assigned to Alice." in page.inner_text(".flash")
    assert page.locator(".msg-customer").count() == 1
    assert page.locator(".msg-internal_note").count() == 1
    assert sam.notifications.filter(kind="mention").count() == 1


def test_a_supervisor_adds_a_member_and_the_waiting_ticket_is_routed(
    logged_in_page: Any, alice: Any, sam: Any
) -> None:
    queue = Queue.objects.create(name="Returns", slug="returns", capacity_per_operator=3)
    waiting = services.ticket_open_for_customer(
        actor=sam,
        subject="Return label is blank",
        customer_message="The PDF prints empty.",
        customer_name="Jamal Reed",
        queue_id=queue.pk,
    )
    assert waiting.unrouted
    other = Queue.objects.create(name="General", slug="general")
    join(alice, other, on_duty=True)  # on duty, but not in Returns yet

    page = logged_in_page(sam)
    page.goto("/tickets/queues/")
    row = page.locator("tr.queue-row[data-queue=returns]")
    assert "1 waiting" in row.inner_text() and "No members" in row.inner_text()
    row.locator("text=Edit").click()
    page.wait_for_url(f"**/tickets/queues/{queue.pk}/")

    # A half-filled SLA row is refused with the reason next to it.
    page.fill("#id_sla_urgent_first_response", "10")
    page.click("#queue-form button[type=submit]")
    page.wait_for_selector("[data-testid=error-sla_urgent_first_response]")
    assert Queue.objects.get(pk=queue.pk).sla_targets.count() == 0

    page.fill("#id_sla_urgent_next_response", "30")
    page.fill("#id_sla_urgent_resolution", "120")
    page.fill("#id_capacity_per_operator", "5")
    page.check(f"#id_members input[value='{alice.pk}']")
    page.click("#queue-form button[type=submit]")
    page.wait_for_url("**/tickets/queues/")
    assert "1 waiting ticket(s) routed." in page.inner_text(".flash")
    row = page.locator("tr.queue-row[data-queue=returns]")
    assert "Alice" in row.inner_text() and "urgent: 10/30/120" in row.inner_text()
    assert row.locator("[data-testid=unrouted]").inner_text() == "0"
    assert Ticket.objects.get(pk=waiting.pk).assignee == alice
