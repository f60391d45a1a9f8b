"""The inbox in a real browser: list, filters, the ticket page, a reply, a note, a stale
submission, presence and a bulk change."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tickets.conftest import join
from tickets import services
from tickets.models import Queue, Ticket

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def inbox(alice: Any, sam: Any) -> dict[str, Any]:
    queue = Queue.objects.create(name="Billing", slug="billing")
    join(alice, queue, on_duty=True)
    first = services.ticket_open_for_customer(
        actor=sam,
        subject="Double charge on my card",
        customer_message="You charged me twice for order 88123.",
        customer_name="Marco Rossi",
        customer_email="marco@example.test",
        queue_id=queue.pk,
        priority="urgent",
    )
    second = services.ticket_open_for_customer(
        actor=sam,
        subject="Invoice needs VAT number",
        customer_message="Please add our VAT number.",
        customer_name="Sofia Lind",
        queue_id=queue.pk,
        priority="low",
    )
    return {"queue": queue, "first": first, "second": second}


def test_inbox_lists_my_tickets_and_search_narrows_them(
    logged_in_page: Any, alice: Any, inbox: Any
) -> None:
    page = logged_in_page(alice)
    page.goto("/tickets/")
    rows = page.locator("tr.ticket-row")
    assert rows.count() == 2
    page.fill("#f-q", "VAT")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**q=VAT**")
    assert page.locator("tr.ticket-row").count() == 1
    assert "Invoice needs VAT number" in page.inner_text("tr.ticket-row")


def test_ticket_page_then_a_reply_and_a_note(
    logged_in_page: Any, alice: Any, sam: Any, inbox: Any
) -> None:
    ticket = inbox["first"]
    page = logged_in_page(alice)
    page.goto("/tickets/")
    page.click("text=Double charge on my card")
    page.wait_for_url(f"**/tickets/{ticket.pk}/")
    assert page.locator(".msg-customer").count() == 1
    assert (
        "Owner" in page.inner_text(".ticket-meta")
        and page.inner_text("[data-testid=ticket-owner]") == "Alice"
    )

    page.fill("#reply-body", "Sorry about that, the duplicate is being refunded.")
    page.click(".reply-form button[type=submit]")
    page.wait_for_selector(".msg-public_reply")
    assert "duplicate is being refunded" in page.inner_text(".msg-public_reply")
    assert page.inner_text("[data-testid=ticket-status]") == "Open"

    page.fill("#note-body", "@sam please approve the refund")
    page.click(".note-form button[type=submit]")
    page.wait_for_selector(".msg-internal_note")
    assert "please approve" in page.inner_text(".msg-internal_note")
    # Customer message, reply and note look different.
    colours = {
        kind: page.eval_on_selector(f".msg-{kind}", "e => getComputedStyle(e).backgroundColor")
        for kind in ("customer", "public_reply", "internal_note")
    }
    assert len(set(colours.values())) == 3
    assert sam.notifications.filter(kind="mention").count() == 1


def test_a_reply_from_a_stale_view_is_refused_and_the_draft_kept(
    logged_in_page: Any, alice: Any, sam: Any, inbox: Any
) -> None:
    ticket = inbox["first"]
    page = logged_in_page(alice)
    page.goto(f"/tickets/{ticket.pk}/")
    current = Ticket.objects.get(pk=ticket.pk)
    services.ticket_status_set(
        actor=sam, ticket_id=ticket.pk, status="on_hold", expected_version=current.version
    )
    page.fill("#reply-body", "My long careful answer")
    page.click(".reply-form button[type=submit]")
    page.wait_for_selector("[data-testid=conflict]")
    assert "changed since you opened it" in page.inner_text("[data-testid=conflict]")
    assert page.input_value("#reply-body") == "My long careful answer"
    assert not Ticket.objects.get(pk=ticket.pk).messages.filter(kind="public_reply").exists()


def test_presence_shows_who_else_is_on_the_ticket(
    browser: Any, live_server: Any, logged_in_page: Any, alice: Any, sam: Any, inbox: Any
) -> None:
    ticket = inbox["first"]
    services.presence_touch(actor=sam, ticket_id=ticket.pk)
    page = logged_in_page(alice)
    page.goto(f"/tickets/{ticket.pk}/")
    assert "Also viewing: Sam" in page.inner_text("[data-testid=presence]")


def test_bulk_priority_change_from_the_inbox(logged_in_page: Any, alice: Any, inbox: Any) -> None:
    page = logged_in_page(alice)
    page.goto("/tickets/?sort=oldest")
    page.check(f"input[name=t][value^='{inbox['second'].pk}:']")
    page.select_option("#b-action", "priority")
    page.select_option("#b-priority", "high")
    page.click("#bulk-form .bulk button[type=submit]")
    page.wait_for_selector(".flash-success")
    assert "Updated 1 ticket(s)." in page.inner_text(".flash")
    assert Ticket.objects.get(pk=inbox["second"].pk).priority == "high"
