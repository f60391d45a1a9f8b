"""Issue 15, item 10 in a real browser: the header's notifications on every page, in words;
a note mentioning nobody refused with the text kept; a breach still shown after a late reply."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from identity.models import Operator
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in
from tickets import services
from tickets.models import Queue, QueueMembership, Ticket

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_agent_sees_notifications_everywhere_a_bad_mention_refused_and_a_past_breach(
    person_page: Any, alice: Operator, sam: Operator
) -> None:
    billing = Queue.objects.create(name="Billing", slug="billing")
    QueueMembership.objects.create(queue=billing, operator=alice)
    services.operator_duty_set(actor=alice, on_duty=True)
    start = timezone.now() - dt.timedelta(hours=2)
    with time_machine.travel(start, tick=False):
        ticket = services.ticket_open_for_customer(
            actor=sam,
            subject="Charged twice",
            customer_message="Please refund one",
            customer_name="Lena",
            queue_id=billing.pk,
            priority="urgent",
        )
    with time_machine.travel(start + dt.timedelta(minutes=31), tick=False):
        services.sla_evaluate()
        services.ticket_reply(
            actor=alice,
            ticket_id=ticket.pk,
            body="On it, sorry for the wait",
            expected_version=Ticket.objects.get(pk=ticket.pk).version,
        )

    page = sign_in(person_page, alice, PASSWORD)
    for url in ("/", "/security/"):
        page.goto(url)
        read(page)
        link = page.locator("[data-testid=header-notifications]")
        assert link.is_visible() and "2" in link.inner_text()  # assigned, then breached
        width = page.viewport_size["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width, url
    screenshot(page, "header-notifications")
    page.click("[data-testid=header-notifications]")
    page.wait_for_url("**/tickets/notifications/")
    read(page)
    badges = page.locator(".notification .badge").all_inner_texts()
    assert "SLA breached" in badges and "Assignment" in badges
    assert not any("_" in badge for badge in badges)

    page.goto(f"/tickets/{ticket.pk}/")
    read(page)
    assert page.is_visible("[data-testid=sla-breached-earlier]")
    page.fill("#note-body", "@sammy can you approve the refund?")
    page.click("text=Add note")
    page.wait_for_selector("[data-testid=conflict]")
    read(page)
    screenshot(page, "mention-refused")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert "@sammy" in page.inner_text("[data-testid=conflict]")
    assert page.input_value("#note-body") == "@sammy can you approve the refund?"
    page.fill("#note-body", "@sam can you approve the refund?")
    page.click("text=Add note")
    page.wait_for_selector(".msg-internal_note")
