"""The inbox pages for the personas."""

from __future__ import annotations

import pytest

from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets.models import Ticket


@pytest.fixture
def ticket(alice, queue, make_ticket) -> Ticket:
    join(alice, queue, on_duty=True)
    return Ticket.objects.get(pk=make_ticket(queue, subject="Broken zipper").pk)


def test_inbox_lists_my_tickets_with_tabs_and_filters(ticket, alice) -> None:
    html = verified_client(alice).get("/tickets/").content.decode()
    assert "Broken zipper" in html
    assert "Escalated by AI" in html and ">All<" not in html  # agents have no "All" tab
    assert f'name="t" value="{ticket.pk}:{ticket.version}"' in html


def test_supervisor_sees_the_all_tab(ticket, sam) -> None:
    html = verified_client(sam).get("/tickets/?view=all").content.decode()
    assert ">All<" in html and "Broken zipper" in html


def test_search_filter_in_the_page(ticket, alice) -> None:
    client = verified_client(alice)
    assert "Broken zipper" in client.get("/tickets/?view=queues&q=zipper").content.decode()
    assert "Broken zipper" not in client.get("/tickets/?view=queues&q=refund").content.decode()


def test_people_without_an_inbox_role_are_sent_to_their_own_page_and_see_no_ticket(
    ticket, olga, bob
) -> None:
    for nobody, landing in ((olga, "/"), (bob, "/payments/approvals/")):
        client = verified_client(nobody)
        response = client.get("/tickets/", follow=True)
        assert response.redirect_chain == [(landing, 302)]
        assert "no inbox" in response.content.decode()
        assert client.get(f"/tickets/{ticket.pk}/").status_code == 404


def test_ticket_page_shows_message_kinds_distinctly(ticket, alice) -> None:
    client = verified_client(alice)
    client.post(f"/tickets/{ticket.pk}/reply/", {"body": "We are on it", "version": ticket.version})
    client.post(
        f"/tickets/{ticket.pk}/note/", {"body": "carrier says lost", "version": ticket.version + 1}
    )
    html = client.get(f"/tickets/{ticket.pk}/").content.decode()
    for css in ("msg msg-customer", "msg msg-public_reply", "msg msg-internal_note"):
        assert css in html
    assert "Only you are viewing" in html


def test_presence_endpoint_names_other_viewers(ticket, alice, sam) -> None:
    verified_client(sam).get(f"/tickets/{ticket.pk}/")
    html = verified_client(alice).get(f"/tickets/{ticket.pk}/presence/").content.decode()
    assert "Also viewing" in html and "Sam" in html


def test_bulk_form_sets_status_and_reports_skips(ticket, alice, queue, make_ticket) -> None:
    other = Ticket.objects.get(pk=make_ticket(queue).pk)
    response = verified_client(alice).post(
        "/tickets/bulk/",
        {
            "action": "status",
            "status": "on_hold",
            "t": [f"{ticket.pk}:{ticket.version}", f"{other.pk}:1"],
        },
        follow=True,
    )
    html = response.content.decode()
    assert "Updated 1 ticket(s)." in html and f"#{other.pk} skipped" in html
    assert Ticket.objects.get(pk=ticket.pk).status == "on_hold"


def test_duty_toggle_routes_waiting_tickets(alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=False)
    waiting = make_ticket(queue)
    response = verified_client(alice).post("/tickets/duty/", {"on_duty": "1"}, follow=True)
    assert "1 waiting ticket(s) routed to you" in response.content.decode()
    assert Ticket.objects.get(pk=waiting.pk).assignee == alice


def test_note_edit_and_history_on_the_page(ticket, alice) -> None:
    client = verified_client(alice)
    client.post(f"/tickets/{ticket.pk}/note/", {"body": "first", "version": ticket.version})
    note = ticket.messages.get(kind="internal_note")
    client.post(
        f"/tickets/{ticket.pk}/notes/{note.pk}/edit/",
        {"body": "second", "version": ticket.version + 1},
    )
    html = client.get(f"/tickets/{ticket.pk}/").content.decode()
    assert "second" in html and "History (1 earlier version)" in html


def test_merge_form_is_shown_to_supervisors_only(ticket, alice, sam) -> None:
    assert "Merge into" not in verified_client(alice).get(f"/tickets/{ticket.pk}/").content.decode()
    assert "Merge into" in verified_client(sam).get(f"/tickets/{ticket.pk}/").content.decode()


def test_notifications_page_and_mark_all_read(ticket, alice) -> None:
    client = verified_client(alice)
    assert "assigned to you" in client.get("/tickets/notifications/").content.decode()
    client.post("/tickets/notifications/read/")
    assert not alice.notifications.filter(read_at__isnull=True).exists()


def test_home_page_shows_the_inbox_panel(ticket, alice, olga) -> None:
    assert "Breaching SLA" in verified_client(alice).get("/").content.decode()
    assert "Breaching SLA" not in verified_client(olga).get("/").content.decode()


def test_bulk_redirect_ignores_an_offsite_next(ticket, alice) -> None:
    response = verified_client(alice).post(
        "/tickets/bulk/",
        {
            "action": "status",
            "status": "on_hold",
            "t": [f"{ticket.pk}:{ticket.version}"],
            "next": "//evil.example/x",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/tickets/"


def test_agents_are_not_offered_reassignment_of_an_owned_ticket(ticket, alice, sam) -> None:
    assert (
        "Reassign</button>"
        not in verified_client(alice).get(f"/tickets/{ticket.pk}/").content.decode()
    )
    assert (
        "Reassign</button>" in verified_client(sam).get(f"/tickets/{ticket.pk}/").content.decode()
    )
