"""Queue administration: who may see and change queues, the list's figures, creating and
editing a queue with clear form errors, the audit trail, routing when capacity appears,
and seed reruns that write nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from backoffice.errors import Forbidden, ValidationFailed
from identity.models import AuditEvent, Role
from tests.conftest import make_service_token, verified_client
from tests.tickets.conftest import join
from tickets import seed, services, sla
from tickets.models import Queue, QueueMembership, SlaTarget, Ticket
from tickets.services.queues import queue_create


def _queue_form(queue: Queue | None = None, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": queue.name if queue else "Partnerships",
        "slug": queue.slug if queue else "partnerships",
        "description": queue.description if queue else "Marketplace sellers",
        "capacity_per_operator": str(queue.capacity_per_operator if queue else 5),
        "members": [str(m.operator_id) for m in queue.memberships.all()] if queue else [],
    }
    if queue:
        for row in queue.sla_targets.all():
            data[f"sla_{row.priority}_first_response"] = row.first_response_minutes
            data[f"sla_{row.priority}_next_response"] = row.next_response_minutes
            data[f"sla_{row.priority}_resolution"] = row.resolution_minutes
    data.update(overrides)
    return data


@pytest.mark.parametrize("persona", ["sam", "ada"])
def test_supervisors_and_admins_see_queues_with_members_and_figures(
    persona, request, queue, alice, make_agent, make_ticket
) -> None:
    join(alice, queue, on_duty=False)
    make_agent("bea", queue, on_duty=True, cap=1)
    make_ticket(queue)  # routed to Bea (her cap is 1)
    make_ticket(queue)  # waits unrouted
    html = verified_client(request.getfixturevalue(persona)).get("/tickets/queues/").content
    page = html.decode()
    assert "Billing" in page and "Alice" in page and "Bea" in page
    assert '<td data-testid="on-duty">1</td>' in page
    assert "1 waiting" in page
    assert f'href="/tickets/queues/{queue.pk}/"' in page
    # Only those with an inbox get links into the queue's tickets (admins have none).
    assert ("?view=all&amp;queue=" in page) == (persona == "sam")


@pytest.mark.parametrize("persona", ["alice", "bob", "audrey", "rita", "olga"])
def test_everyone_else_is_refused_every_queue_page(persona, request, queue) -> None:
    client = verified_client(request.getfixturevalue(persona))
    assert client.get("/tickets/queues/").status_code == 403
    assert client.get("/tickets/queues/new/").status_code == 403
    assert client.post("/tickets/queues/new/", _queue_form()).status_code == 403
    assert client.get(f"/tickets/queues/{queue.pk}/").status_code == 403
    assert (
        client.post(f"/tickets/queues/{queue.pk}/", _queue_form(queue, name="X")).status_code == 403
    )
    assert Queue.objects.count() == 1 and Queue.objects.get().name == "Billing"


def test_saving_a_queue_needs_a_recent_second_factor(sam, queue) -> None:
    client = verified_client(sam, stepped_up=False)
    response = client.post(f"/tickets/queues/{queue.pk}/", _queue_form(queue, name="Money"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("identity:stepup"))
    assert Queue.objects.get().name == "Billing"


def test_creating_a_queue_with_members_and_sla_targets_is_audited(sam, alice) -> None:
    client = verified_client(sam)
    form = _queue_form(
        members=[str(alice.pk)],
        sla_urgent_first_response="15",
        sla_urgent_next_response="30",
        sla_urgent_resolution="120",
    )
    response = client.post("/tickets/queues/new/", form)
    assert response.status_code == 302 and response["Location"] == "/tickets/queues/"
    queue = Queue.objects.get(slug="partnerships")
    assert queue.capacity_per_operator == 5
    assert list(queue.memberships.values_list("operator_id", flat=True)) == [alice.pk]
    target = SlaTarget.objects.get(queue=queue)
    assert (target.priority, target.first_response_minutes, target.resolution_minutes) == (
        "urgent",
        15,
        120,
    )
    event = AuditEvent.objects.get(action="queue.create")
    assert event.actor_id == sam.pk and event.after["members"] == [alice.pk]
    assert "Queue Partnerships created." in client.get("/tickets/queues/").content.decode()


def test_the_queue_form_explains_each_mistake_and_saves_nothing(sam, queue) -> None:
    response = verified_client(sam).post(
        "/tickets/queues/new/",
        _queue_form(
            name="billing",  # taken, whatever the case
            slug="Not A Slug",
            capacity_per_operator="0",
            sla_high_first_response="30",  # the other two high targets are missing
        ),
    )
    html = response.content.decode()
    assert response.status_code == 400
    for field in ("slug", "capacity_per_operator", "sla_high_first_response"):
        assert f'data-testid="error-{field}"' in html, field
    assert "give all three targets" in html
    assert Queue.objects.count() == 1
    response = verified_client(sam).post("/tickets/queues/new/", _queue_form(name="billing"))
    assert response.status_code == 400
    assert "Another queue is already called &#x27;Billing&#x27;." in response.content.decode()
    assert Queue.objects.count() == 1 and not AuditEvent.objects.filter(action__startswith="queue.")


def test_editing_shows_current_values_and_records_only_what_changed(sam, alice, queue) -> None:
    join(alice, queue)
    SlaTarget.objects.create(
        queue=queue,
        priority="high",
        first_response_minutes=45,
        next_response_minutes=90,
        resolution_minutes=360,
    )
    client = verified_client(sam)
    html = client.get(f"/tickets/queues/{queue.pk}/").content.decode()
    assert 'value="Billing"' in html and 'value="45"' in html
    assert f'value="{alice.pk}" id="id_members_0" checked' in html
    form = _queue_form(queue, capacity_per_operator="2")
    form.pop("sla_high_first_response")
    form.pop("sla_high_next_response")
    form.pop("sla_high_resolution")
    assert client.post(f"/tickets/queues/{queue.pk}/", form).status_code == 302
    queue.refresh_from_db()
    assert queue.capacity_per_operator == 2 and not queue.sla_targets.exists()
    event = AuditEvent.objects.get(action="queue.update")
    assert event.before == {
        "capacity_per_operator": 3,
        "sla.high": {"first_response": 45, "next_response": 90, "resolution": 360},
    }
    assert event.after == {"capacity_per_operator": 2, "sla.high": None, "routed": []}


def test_saving_an_unchanged_queue_writes_nothing(sam, alice, queue) -> None:
    join(alice, queue)
    queue = Queue.objects.prefetch_related("memberships", "sla_targets").get(pk=queue.pk)
    client = verified_client(sam)
    response = client.post(f"/tickets/queues/{queue.pk}/", _queue_form(queue), follow=True)
    assert "Nothing changed in Billing." in response.content.decode()
    assert not AuditEvent.objects.filter(action="queue.update").exists()


def test_adding_an_on_duty_member_routes_the_waiting_tickets(
    sam, alice, queue, other_queue, make_agent, make_ticket
) -> None:
    join(alice, queue, on_duty=False)
    waiting = [make_ticket(queue), make_ticket(queue)]
    assert all(t.unrouted for t in waiting)
    carol = make_agent("carol", other_queue, on_duty=True)  # on duty, in another queue
    queue = Queue.objects.prefetch_related("memberships", "sla_targets").get(pk=queue.pk)
    form = _queue_form(queue, members=[str(alice.pk), str(carol.pk)])
    response = verified_client(sam).post(f"/tickets/queues/{queue.pk}/", form, follow=True)
    assert "2 waiting ticket(s) routed." in response.content.decode()
    assert set(Ticket.objects.values_list("assignee_id", flat=True)) == {carol.pk}
    event = AuditEvent.objects.get(action="queue.update")
    assert event.before["members"] == [alice.pk]
    assert sorted(event.after["routed"]) == sorted(t.pk for t in waiting)


def test_raising_the_cap_routes_tickets_that_waited_for_capacity(
    sam, queue, make_agent, make_ticket
) -> None:
    bea = make_agent("bea", queue, on_duty=True)
    tickets = [make_ticket(queue) for _ in range(4)]  # the cap is 3: one waits
    assert Ticket.objects.filter(unrouted=True).count() == 1
    change = services.queue_update(actor=sam, queue_id=queue.pk, capacity_per_operator=4)
    assert [r.ticket_id for r in change.routed] == [tickets[-1].pk]
    assert Ticket.objects.filter(assignee=bea).count() == 4
    # Lowering it again routes nothing and takes nothing away.
    change = services.queue_update(actor=sam, queue_id=queue.pk, capacity_per_operator=2)
    assert change.routed == [] and Ticket.objects.filter(assignee=bea).count() == 4


def test_removing_a_member_keeps_their_tickets_and_is_audited(
    sam, queue, make_agent, make_ticket
) -> None:
    bea = make_agent("bea", queue, on_duty=True)
    ticket = make_ticket(queue)
    change = services.queue_update(actor=sam, queue_id=queue.pk, member_ids=[])
    assert change.changed == ["members"]
    assert not QueueMembership.objects.filter(queue=queue).exists()
    assert Ticket.objects.get(pk=ticket.pk).assignee == bea
    assert AuditEvent.objects.get(action="queue.update").before["members"] == [bea.pk]


def test_services_refuse_non_managers_and_invalid_members(alice, bob, sam, queue) -> None:
    with pytest.raises(Forbidden):
        services.queue_update(actor=alice, queue_id=queue.pk, name="Mine now")
    with pytest.raises(Forbidden):
        queue_create(actor=alice, name="Side queue", slug="side")
    with pytest.raises(ValidationFailed) as invalid:
        services.queue_update(actor=sam, queue_id=queue.pk, member_ids=[bob.pk])
    assert "members" in invalid.value.fields  # Bob approves refunds; he works no tickets
    with pytest.raises(ValidationFailed) as invalid_targets:
        services.queue_update(
            actor=sam, queue_id=queue.pk, targets={"someday": sla.Targets(1, 2, 3)}
        )
    assert "targets" in invalid_targets.value.fields
    assert not AuditEvent.objects.filter(action__startswith="queue.").exists()


def test_the_inbox_and_navigation_link_to_queues_only_for_managers(alice, sam, queue) -> None:
    join(alice, queue)
    assert 'href="/tickets/queues/"' in verified_client(sam).get("/tickets/").content.decode()
    assert 'href="/tickets/queues/"' not in verified_client(alice).get("/tickets/").content.decode()


def test_a_seed_rerun_that_changes_nothing_writes_nothing(make_operator) -> None:
    operators = {
        "alice": make_operator("alice", [Role.AGENT]),
        "carol": make_operator("carol", [Role.AGENT]),
        "sam": make_operator("sam", [Role.SUPERVISOR]),
    }
    operators["agent-runtime"], _ = make_service_token(["escalations:create"])
    seed.seed(operators=operators)
    audit_rows = AuditEvent.objects.count()
    seed.seed(operators=operators)
    assert AuditEvent.objects.count() == audit_rows
    # A queue edited since is put back to the demo's settings (audited), keeping new members.
    dave = make_operator("dave", [Role.AGENT])
    general = Queue.objects.get(slug="general")
    services.queue_update(actor=None, queue_id=general.pk, capacity_per_operator=99)
    QueueMembership.objects.create(queue=general, operator=dave)
    seed.seed(operators=operators)
    general.refresh_from_db()
    assert general.capacity_per_operator == 10
    assert general.memberships.filter(operator=dave).exists()
    assert AuditEvent.objects.filter(action="queue.update").count() == 2


def test_a_supervisor_puts_a_member_on_duty_from_the_queue_list(
    sam, alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=False)
    waiting = make_ticket(queue)
    client = verified_client(sam)
    page = client.get("/tickets/queues/").content.decode()
    assert "set on duty" in page
    response = client.post(
        "/tickets/queues/duty/", {"operator": alice.pk, "on_duty": "1"}, follow=True
    )
    assert "Alice is on duty; 1 waiting ticket(s) routed." in response.content.decode()
    assert Ticket.objects.get(pk=waiting.pk).assignee == alice
    event = AuditEvent.objects.get(action="operator.duty")
    assert event.actor_id == sam.pk and event.after["on_duty"] is True


def test_an_admin_sees_duty_but_may_not_change_someone_elses(ada, alice, queue) -> None:
    join(alice, queue, on_duty=False)
    client = verified_client(ada)
    assert "set on duty" not in client.get("/tickets/queues/").content.decode()
    response = client.post(
        "/tickets/queues/duty/", {"operator": alice.pk, "on_duty": "1"}, follow=True
    )
    assert "Only a supervisor may change another operator" in response.content.decode()
    assert not AuditEvent.objects.filter(action="operator.duty").exists()


def test_agents_cannot_change_duty_from_the_queue_pages(alice, queue) -> None:
    response = verified_client(alice).post(
        "/tickets/queues/duty/", {"operator": alice.pk, "on_duty": "1"}
    )
    assert response.status_code == 403
