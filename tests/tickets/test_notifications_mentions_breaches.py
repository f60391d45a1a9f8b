"""Issue 15, item 10: notifications in the header of every page in words, a mention of
nobody refused with the note kept, and a missed deadline still shown after the late reply."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from backoffice.errors import ValidationFailed
from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets import services
from tickets.models import Message, MessageKind, Ticket

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def version(ticket: Ticket) -> int:
    return Ticket.objects.values_list("version", flat=True).get(pk=ticket.pk)


def test_a_note_naming_nobody_is_refused_and_comes_back_in_its_box(
    alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    ticket = make_ticket(queue)
    with pytest.raises(ValidationFailed, match="@bobb"):
        services.ticket_note_add(
            actor=alice,
            ticket_id=ticket.pk,
            body="@bobb please check",
            expected_version=version(ticket),
        )
    assert not Message.objects.filter(kind=MessageKind.INTERNAL_NOTE).exists()
    page = verified_client(alice).post(
        f"/tickets/{ticket.pk}/note/",
        {"body": "Ask @nobody.here about it", "version": version(ticket)},
    )
    assert page.status_code == 400
    html = page.content.decode()
    assert "no operator is called @nobody.here" in html
    assert ">Ask @nobody.here about it</textarea>" in html
    # An e-mail address is no mention, and a real colleague is fine.
    services.ticket_note_add(
        actor=alice,
        ticket_id=ticket.pk,
        body="Customer wrote from carla@example.test; @sam FYI",
        expected_version=version(ticket),
    )


def test_the_header_shows_unread_notifications_in_words_on_every_page(
    alice, sam, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=True)
    make_ticket(queue)  # routed to Alice: an assignment notification
    client = verified_client(alice)
    for url in ("/", "/security/", "/payments/approvals/"):
        html = client.get(url).content.decode()
        assert 'data-testid="header-notifications"' in html, url
        assert '<span class="badge info">1</span>' in html, url
    page = client.get("/tickets/notifications/").content.decode()
    assert ">Assignment</span>" in page and ">assignment</span>" not in page


def test_no_header_link_for_a_role_without_the_notifications_page(bob) -> None:
    html = verified_client(bob).get("/").content.decode()
    assert 'data-testid="header-notifications"' not in html
    assert verified_client(bob).get("/tickets/notifications/").status_code == 404


def test_a_breach_stays_on_the_ticket_after_the_late_reply(alice, queue, make_ticket) -> None:
    join(alice, queue, on_duty=True)
    with time_machine.travel(T0, tick=False):
        ticket = make_ticket(queue, priority="urgent")  # first response due in 30 min
    with time_machine.travel(T0 + dt.timedelta(minutes=31), tick=False):
        services.sla_evaluate()
        services.ticket_reply(
            actor=alice, ticket_id=ticket.pk, body="Sorry", expected_version=version(ticket)
        )
    ticket.refresh_from_db()
    assert not ticket.sla_breached  # the clock was met, late
    html = verified_client(alice).get(f"/tickets/{ticket.pk}/").content.decode()
    assert 'data-testid="sla-breached-earlier"' in html and "SLA breached (due" in html
