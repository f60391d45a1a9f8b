"""What the issue asks of the inbox and ticket pages that the first pages lacked: the
customer with their other tickets and merge candidates, tag chips, clear bulk errors,
first/last pagination and a way to clear filters."""

from __future__ import annotations

from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets.models import Customer, Ticket


def test_the_ticket_page_shows_the_customer_and_their_other_tickets(
    sam, queue, make_ticket
) -> None:
    first = make_ticket(queue, subject="Parcel lost", customer_external_id="C-77", tags=["vip"])
    second = make_ticket(queue, subject="Parcel lost again")
    make_ticket(queue, subject="Someone else", customer_email="x@example.test", customer_name="X")
    html = verified_client(sam).get(f"/tickets/{second.pk}/").content.decode()
    assert Customer.objects.count() == 2
    assert 'data-testid="customer-card"' in html and "C-77" in html
    assert f'<option value="{first.pk}">#{first.pk} Parcel lost' in html  # merge candidate
    assert "Someone else" not in html
    first_html = verified_client(sam).get(f"/tickets/{first.pk}/").content.decode()
    assert 'data-testid="ticket-tags"' in first_html and "tag=vip" in first_html


def test_an_agent_sees_only_candidates_they_may_see(alice, queue, other_queue, make_ticket) -> None:
    join(alice, queue, on_duty=True)
    mine = make_ticket(queue, subject="In my queue")
    make_ticket(other_queue, subject="Hidden from Alice")
    html = verified_client(alice).get(f"/tickets/{mine.pk}/").content.decode()
    assert "Hidden from Alice" not in html


def test_a_bulk_change_without_a_value_says_what_is_missing(alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=True)
    ticket = make_ticket(queue)
    response = verified_client(alice).post(
        "/tickets/bulk/",
        {"action": "priority", "priority": "", "t": [f"{ticket.pk}:{ticket.version}"]},
        follow=True,
    )
    assert "Nothing changed: Choose a priority to apply." in response.content.decode()
    response = verified_client(alice).post("/tickets/bulk/", {"t": [f"{ticket.pk}:1"]}, follow=True)
    assert "Nothing changed: Choose a bulk action." in response.content.decode()
    assert Ticket.objects.get(pk=ticket.pk).priority == "normal"


def test_pagination_offers_first_and_last_and_filters_can_be_cleared(
    alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=False)
    for n in range(26):
        make_ticket(queue, subject=f"Ticket {n}")
    client = verified_client(alice)
    html = client.get("/tickets/?view=queues&priority=normal").content.decode()
    assert 'page=2">Last »' in html and "Page 1 of 2" in html
    assert 'data-testid="clear-filters"' in html and 'href="?view=queues"' in html
    html = client.get("/tickets/?view=queues&page=2").content.decode()
    assert 'page=1">« First' in html
    assert 'data-testid="clear-filters"' not in html
