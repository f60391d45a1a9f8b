"""The inbox on a phone (issue 15, item 9): nothing scrolls sideways, the filters and the bulk
actions fold away behind a button each, tickets are cards; at a desk all of it stays open."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in
from tickets import services
from tickets.models import Queue, QueueMembership

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_inbox_fits_the_screen_and_folds_its_filters_on_a_phone(
    person_page: Any, alice: Operator, sam: Operator
) -> None:
    billing = Queue.objects.create(name="Billing", slug="billing")
    QueueMembership.objects.create(queue=billing, operator=alice)
    for n in range(3):
        services.ticket_open_for_customer(
            actor=sam,
            subject=f"Parcel {n} arrived damaged and the courier would not take it back",
            customer_message="Photos attached",
            customer_name="Margarethe Vandersloot-Hernández",
            customer_email="margarethe.vandersloot@example.test",
            queue_id=billing.pk,
        )
    page = sign_in(person_page, alice, PASSWORD)
    page.goto("/tickets/?view=queues")
    read(page)
    screenshot(page, "inbox")
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.locator("tr.ticket-row").count() == 3
    assert page.is_visible("#f-q")  # the search box is always there
    if person_page.width_name == "phone":
        assert not page.is_visible("#f-status") and not page.is_visible("#b-action")
        row = page.locator("tr.ticket-row").first.bounding_box()
        assert row is not None and row["width"] <= width and row["height"] > 60  # a card
        page.click("[data-testid=filters-toggle]")
        read(page)
        screenshot(page, "inbox-filters-open")
        assert page.is_visible("#f-status")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.select_option("#f-priority", "normal")
        page.click("text=Apply")
        page.wait_for_load_state("load")
        # A filter in use keeps the filters open after the page reloads.
        assert page.is_visible("#f-priority")
        assert page.locator("tr.ticket-row").count() == 3
    else:
        assert page.is_visible("#f-status") and page.is_visible("#b-action")
        assert not page.is_visible("[data-testid=filters-toggle]")
