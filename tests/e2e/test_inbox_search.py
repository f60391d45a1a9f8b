"""An agent searches the inbox as people type into a search box (issue 15, item 5): a Chinese
fragment, an order number, a customer's name, "#N" — at a desk and on a phone."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import Operator
from tests.conftest import PASSWORD
from tests.e2e.conftest import read, screenshot, sign_in
from tickets import services
from tickets.models import Queue, QueueMembership, Status, Ticket

pytestmark = pytest.mark.django_db(transaction=True)


def _search(page: Any, text: str) -> list[str]:
    page.fill("#f-q", text)
    page.press("#f-q", "Enter")
    page.wait_for_load_state("load")
    read(page)
    return page.locator("tr.ticket-row").evaluate_all("rows => rows.map(r => r.dataset.ticket)")


def test_an_agent_finds_tickets_by_chinese_fragment_order_number_name_and_opens_hash_n(
    person_page: Any, alice: Operator, sam: Operator
) -> None:
    billing = Queue.objects.create(name="Billing", slug="billing")
    elsewhere = Queue.objects.create(name="Returns", slug="returns")
    QueueMembership.objects.create(queue=billing, operator=alice)

    def make(queue: Queue, subject: str, body: str, name: str) -> Ticket:
        return services.ticket_open_for_customer(
            actor=sam, subject=subject, customer_message=body, customer_name=name, queue_id=queue.pk
        )

    refund = make(billing, "退款没有到账", "订单 W2945188 已经取消三天了", "王小明")
    closed = make(billing, "Voucher", "Card ending 4242 charged twice", "Lucas Johnson")
    Ticket.objects.filter(pk=closed.pk).update(status=Status.CLOSED)
    hidden = make(elsewhere, "退款太慢", "W2945188", "Hidden Person")

    page = sign_in(person_page, alice, PASSWORD)
    page.goto("/tickets/?view=mine")  # a tab with none of these tickets in it
    read(page)
    assert _search(page, "退款") == [str(refund.pk)]
    screenshot(page, "search-chinese")
    assert "every ticket you can see" in page.inner_text("[data-testid=search-scope]")
    assert _search(page, "没有到账") == [str(refund.pk)]
    assert _search(page, "#W2945188") == [str(refund.pk)]  # not the hidden ticket
    assert _search(page, "4242") == [str(closed.pk)]  # a closed ticket is found too
    assert _search(page, "lucas johnson") == [str(closed.pk)]
    assert str(hidden.pk) not in _search(page, "W2945188")
    page.fill("#f-q", f"#{refund.pk}")
    page.press("#f-q", "Enter")
    page.wait_for_url(f"**/tickets/{refund.pk}/")
    read(page)
    screenshot(page, "search-hash-opens")
