"""The ticket page from the keyboard (issue 15, item 9): a skip link, shortcuts for reply,
note, assign and next ticket, listed on a help overlay — at a desk and on a phone (with a
keyboard attached)."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in
from tickets import services
from tickets.models import Message, MessageKind, Queue, QueueMembership, Ticket

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_agent_works_a_ticket_from_the_keyboard(
    person_page: Any, alice: Operator, sam: Operator
) -> None:
    billing = Queue.objects.create(name="Billing", slug="billing")
    QueueMembership.objects.create(queue=billing, operator=alice)
    first, second = (
        services.ticket_open_for_customer(
            actor=sam,
            subject=subject,
            customer_message="Please help",
            customer_name="Lena",
            queue_id=billing.pk,
        )
        for subject in ("Charged twice", "Wrong size")
    )
    # The first waits for an owner (so it can be assigned); the second is already Alice's.
    services.ticket_assign(
        actor=sam,
        ticket_id=second.pk,
        assignee_id=alice.pk,
        expected_version=Ticket.objects.get(pk=second.pk).version,
    )
    page = sign_in(person_page, alice, PASSWORD)
    page.goto(f"/tickets/{first.pk}/")
    read(page)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('skip-link')")
    assert page.is_visible(".skip-link")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"

    page.keyboard.press("?")
    page.wait_for_selector("[data-testid=shortcuts]", state="visible")
    screenshot(page, "shortcuts")
    assert "Next ticket" in page.inner_text("[data-testid=shortcuts]")
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=shortcuts]", state="hidden")

    page.keyboard.press("n")
    assert page.evaluate("document.activeElement.id") == "note-body"
    page.keyboard.type("Customer sent the bank statement")
    page.keyboard.press("Escape")  # leave the text box: shortcuts work again
    page.keyboard.press("r")
    assert page.evaluate("document.activeElement.id") == "reply-body"
    page.keyboard.press("Escape")
    page.keyboard.press("a")
    assert page.evaluate("document.activeElement.id") == "assignee"
    page.evaluate("document.activeElement.blur()")
    page.click("text=Add note")
    page.wait_for_selector(".msg-internal_note")
    assert Message.objects.filter(
        ticket_id=first.pk, kind=MessageKind.INTERNAL_NOTE, body="Customer sent the bank statement"
    ).exists()
    read(page)
    page.keyboard.press("j")
    page.wait_for_url(f"**/tickets/{second.pk}/")
    read(page)
    screenshot(page, "next-ticket")
