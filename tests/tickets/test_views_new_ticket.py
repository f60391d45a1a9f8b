"""The new-ticket page: an operator opens a ticket for a customer on the phone, by email or in
chat, for a customer on file or a new one, starting with the customer's words and/or a note;
it is routed like any other ticket unless the operator keeps it."""

from __future__ import annotations

from typing import Any

import pytest

from identity.models import AuditEvent
from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets.models import Customer, Message, Queue, Ticket


def _form(queue: Queue, **overrides: Any) -> dict[str, Any]:
    data = {
        "customer_name": "Petra Novak",
        "customer_email": "petra@example.test",
        "customer_external_id": "",
        "channel": "phone",
        "subject": "Called about a missing refund",
        "customer_message": "I returned the boots three weeks ago and have no refund.",
        "internal_note": "",
        "queue": str(queue.pk),
        "priority": "high",
        "tags": "refund, phone",
    }
    data.update(overrides)
    return data


def test_an_agent_opens_a_ticket_that_is_routed_to_a_named_owner(alice, queue, make_agent) -> None:
    join(alice, queue, on_duty=False)
    bea = make_agent("bea", queue, on_duty=True)
    client = verified_client(alice)
    response = client.post("/tickets/new/", _form(queue))
    ticket = Ticket.objects.get(subject="Called about a missing refund")
    assert response.status_code == 302 and response["Location"] == f"/tickets/{ticket.pk}/"
    assert ticket.assignee == bea and not ticket.unrouted
    assert (ticket.channel, ticket.priority, ticket.status) == ("phone", "high", "new")
    assert sorted(t.name for t in ticket.tags.all()) == ["phone", "refund"]
    first = ticket.messages.get()
    assert first.kind == "customer" and first.author_label == "Petra Novak"
    event = AuditEvent.objects.get(action="ticket.create", target_id=str(ticket.pk))
    assert event.actor_id == alice.pk and event.after["opened_by_operator"] is True
    page = client.get(response["Location"]).content.decode()
    assert f"Ticket #{ticket.pk} opened, assigned to {bea}." in page


def test_keeping_the_ticket_assigns_it_to_me_instead_of_routing(alice, queue, make_agent) -> None:
    join(alice, queue, on_duty=True)
    make_agent("bea", queue, on_duty=True)
    verified_client(alice).post("/tickets/new/", _form(queue, assign_to_self="on"))
    ticket = Ticket.objects.get(subject="Called about a missing refund")
    assert ticket.assignee == alice
    assert ticket.events.filter(summary__startswith="Kept by").exists()


def test_a_note_alone_opens_the_ticket_and_mentions_notify(alice, sam, queue) -> None:
    join(alice, queue, on_duty=True)
    verified_client(alice).post(
        "/tickets/new/",
        _form(
            queue, customer_message="", internal_note="Walk-in at the desk, @sam please call back"
        ),
    )
    ticket = Ticket.objects.get(subject="Called about a missing refund")
    note = ticket.messages.get()
    assert note.kind == "internal_note" and note.author == alice
    assert sam.notifications.filter(kind="mention").count() == 1


def test_an_existing_customer_is_picked_not_duplicated(alice, queue) -> None:
    join(alice, queue, on_duty=True)
    marco = Customer.objects.create(name="Marco Rossi", email="marco@example.test")
    client = verified_client(alice)
    html = client.get("/tickets/new/customers/", {"customer_q": "MARCO@example.test"}).content
    assert f'value="{marco.pk}"'.encode() in html and b"Marco Rossi" in html
    client.post(
        "/tickets/new/",
        _form(queue, customer_id=str(marco.pk), customer_name="", customer_email=""),
    )
    assert Ticket.objects.get(subject="Called about a missing refund").customer == marco
    # Typing the email of a customer on file reuses them too.
    client.post(
        "/tickets/new/", _form(queue, subject="Second call", customer_email="marco@example.test")
    )
    assert Ticket.objects.get(subject="Second call").customer == marco
    assert Customer.objects.filter(email__iexact="marco@example.test").count() == 1


def test_the_form_explains_what_is_missing_and_creates_nothing(alice, queue) -> None:
    join(alice, queue, on_duty=True)
    response = verified_client(alice).post(
        "/tickets/new/",
        _form(
            queue,
            subject="",
            customer_message="",
            customer_name="",
            customer_email="not-an-email",
            tags="ok, <bad>",
        ),
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert 'data-testid="error-subject"' in html
    assert "Write the customer&#x27;s words, an internal note, or both." in html
    assert 'data-testid="error-customer_email"' in html
    assert Ticket.objects.count() == 0


def test_a_service_validation_error_lands_on_its_field(alice, queue) -> None:
    join(alice, queue, on_duty=True)
    response = verified_client(alice).post("/tickets/new/", _form(queue, tags="fine, <bad>"))
    assert response.status_code == 400
    assert 'data-testid="error-tags"' in response.content.decode()
    assert Ticket.objects.count() == 0


def test_an_agent_cannot_open_a_ticket_in_a_queue_they_do_not_work(
    alice, queue, other_queue
) -> None:
    join(alice, queue, on_duty=True)
    client = verified_client(alice)
    html = client.get("/tickets/new/").content.decode()
    assert "Billing" in html and "Returns" not in html
    response = client.post("/tickets/new/", _form(other_queue))
    assert response.status_code == 400 and 'data-testid="error-queue"' in response.content.decode()
    assert Ticket.objects.count() == 0


def test_a_supervisor_opens_tickets_in_any_queue(sam, queue) -> None:
    verified_client(sam).post("/tickets/new/", _form(queue))
    ticket = Ticket.objects.get(subject="Called about a missing refund")
    assert ticket.unrouted and ticket.assignee is None  # nobody is on duty in Billing


# Release managers work the go-live findings in the inbox, so they are not among these.
@pytest.mark.parametrize("persona", ["bob", "ada", "audrey", "olga"])
def test_people_without_an_inbox_role_get_404(persona, request, queue) -> None:
    client = verified_client(request.getfixturevalue(persona))
    assert client.get("/tickets/new/").status_code == 404
    assert client.post("/tickets/new/", _form(queue)).status_code == 404
    assert client.get("/tickets/new/customers/", {"customer_q": "ma"}).status_code == 404
    assert Ticket.objects.count() == 0 and Message.objects.count() == 0


def test_the_inbox_links_to_the_new_ticket_page(alice, queue) -> None:
    join(alice, queue)
    assert 'href="/tickets/new/"' in verified_client(alice).get("/tickets/").content.decode()


def test_the_form_refuses_a_post_without_csrf(alice, queue) -> None:
    from django.test import Client

    join(alice, queue, on_duty=True)
    client = verified_client(alice)
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = client.cookies
    assert strict.post("/tickets/new/", _form(queue)).status_code == 403
    assert Ticket.objects.count() == 0


def test_a_form_with_errors_keeps_the_customer_search(alice, queue) -> None:
    join(alice, queue, on_duty=True)
    marco = Customer.objects.create(name="Marco Rossi", email="marco@example.test")
    client = verified_client(alice)
    page = client.post("/tickets/new/", _form(queue, subject="", customer_q="marco")).content
    assert b'value="marco"' in page and f'value="{marco.pk}"'.encode() in page
    picked = _form(queue, subject="", customer_id=str(marco.pk), customer_q="marco")
    html = client.post("/tickets/new/", picked).content.decode()
    assert f'value="{marco.pk}" checked' in html


def test_keeping_a_ticket_counts_against_my_capacity(alice, queue) -> None:
    from tickets import routing
    from tickets.models import OperatorLoad

    join(alice, queue, on_duty=True)
    verified_client(alice).post("/tickets/new/", _form(queue, assign_to_self="on"))
    assert OperatorLoad.objects.get(operator=alice).active_tickets == 1
    assert routing.load_recount() == {}  # the counter agrees with the tickets
