"""A change submitted from a stale view is rejected with a clear message and changes nothing."""

from __future__ import annotations

import pytest

from backoffice.errors import Conflict, ValidationFailed
from identity.models import AuditEvent
from tests.conftest import verified_client
from tests.tickets.conftest import join
from tickets import services
from tickets.models import Ticket


@pytest.fixture
def ticket(alice, queue, make_ticket) -> Ticket:
    join(alice, queue, on_duty=True)
    return Ticket.objects.get(pk=make_ticket(queue).pk)


def test_reply_from_a_stale_view_is_rejected_and_names_what_changed(ticket, alice, sam) -> None:
    seen = ticket.version
    services.ticket_status_set(
        actor=sam, ticket_id=ticket.pk, status="on_hold", expected_version=seen
    )
    audit_before = AuditEvent.objects.count()
    with pytest.raises(Conflict) as caught:
        services.ticket_reply(actor=alice, ticket_id=ticket.pk, body="Hi", expected_version=seen)
    assert "This ticket changed since you opened it" in caught.value.message
    assert "Sam: Status New → On hold" in caught.value.message
    ticket.refresh_from_db()
    assert ticket.status == "on_hold" and not ticket.messages.filter(kind="public_reply").exists()
    assert AuditEvent.objects.count() == audit_before


@pytest.mark.parametrize(
    ("service", "kwargs"),
    [
        (services.ticket_status_set, {"status": "open"}),
        (services.ticket_priority_set, {"priority": "urgent"}),
        (services.ticket_tags_set, {"tags": ["x"]}),
        (services.ticket_note_add, {"body": "note"}),
    ],
)
def test_every_change_checks_the_version(ticket, alice, service, kwargs) -> None:
    with pytest.raises(Conflict):
        service(actor=alice, ticket_id=ticket.pk, expected_version=ticket.version - 1, **kwargs)
    assert Ticket.objects.get(pk=ticket.pk).version == ticket.version


def test_version_is_required(ticket, alice) -> None:
    with pytest.raises(ValidationFailed):
        services.ticket_status_set(
            actor=alice, ticket_id=ticket.pk, status="open", expected_version=None
        )


def test_compare_and_set_rejects_a_concurrent_write_that_slipped_past_the_check(
    ticket, alice
) -> None:
    """A writer that read version N and saves after someone else already bumped it must
    fail even without the row lock (SQLite has none): the UPDATE says WHERE version = N."""
    from django.utils import timezone

    from tickets.services import _common

    Ticket.objects.filter(pk=ticket.pk).update(version=ticket.version + 1)
    ticket.status = "open"
    with pytest.raises(Conflict):
        _common.save_ticket(ticket, ["status"], timezone.now())
    assert Ticket.objects.get(pk=ticket.pk).status == "new"


def test_stale_reply_in_the_ui_keeps_the_draft_and_says_why(ticket, alice, sam) -> None:
    seen = ticket.version
    services.ticket_priority_set(
        actor=sam, ticket_id=ticket.pk, priority="high", expected_version=seen
    )
    response = verified_client(alice).post(
        f"/tickets/{ticket.pk}/reply/", {"body": "My carefully written answer", "version": seen}
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "This ticket changed since you opened it" in html
    assert "My carefully written answer" in html
    assert not ticket.messages.filter(kind="public_reply").exists()


def test_stale_api_call_gets_409_with_the_error_shape(ticket, alice, sam) -> None:
    seen = ticket.version
    services.ticket_tags_set(actor=sam, ticket_id=ticket.pk, tags=["vip"], expected_version=seen)
    response = verified_client(alice, api=True).post(
        f"/api/v1/tickets/{ticket.pk}/status", {"status": "open", "version": seen}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "stale_ticket"
    assert Ticket.objects.get(pk=ticket.pk).status == "new"
