"""Each inbox API endpoint against the personas: agent (alice), approver (bob), supervisor
(sam), auditor (audrey), outsider (olga), the AI agent's service principal, anonymous."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from tests.conftest import make_service_token, token_client, verified_client
from tests.tickets.conftest import join
from tickets import services
from tickets.models import Ticket


@pytest.fixture
def ticket(alice, queue, make_ticket) -> Ticket:
    join(alice, queue, on_duty=True)
    return Ticket.objects.get(pk=make_ticket(queue).pk)


def api(operator) -> APIClient:
    client = verified_client(operator, api=True)
    assert isinstance(client, APIClient)
    return client


def v(ticket: Ticket) -> int:
    return Ticket.objects.get(pk=ticket.pk).version


def test_anonymous_gets_401_or_403_everywhere(ticket) -> None:
    client = APIClient()
    for method, url in [
        ("get", "/api/v1/tickets"),
        ("get", f"/api/v1/tickets/{ticket.pk}"),
        ("post", f"/api/v1/tickets/{ticket.pk}/replies"),
        ("post", "/api/v1/escalations"),
    ]:
        assert getattr(client, method)(url).status_code in (401, 403)


def test_list_returns_the_personas_views(ticket, alice, sam, bob, olga, audrey) -> None:
    body = api(alice).get("/api/v1/tickets?view=mine").json()
    assert [row["id"] for row in body["results"]] == [ticket.pk]
    row = body["results"][0]
    assert row["assignee"]["name"] == "Alice" and row["queue"]["slug"] == "billing"
    assert row["sla"]["next_due_at"] and row["version"] == ticket.version
    assert api(sam).get("/api/v1/tickets?view=all").json()["count"] == 1
    assert api(alice).get("/api/v1/tickets?view=all").status_code == 403
    for nobody in (bob, olga, audrey):
        assert api(nobody).get("/api/v1/tickets?view=queues").json()["count"] == 0


def test_list_filters_and_searches(ticket, sam) -> None:
    client = api(sam)
    assert client.get("/api/v1/tickets?view=all&priority=urgent").json()["count"] == 0
    assert client.get("/api/v1/tickets?view=all&status=new,open").json()["count"] == 1
    assert client.get("/api/v1/tickets?view=all&q=parcel").json()["count"] == 1
    assert client.get("/api/v1/tickets?view=all&queue=abc").status_code == 400


def test_detail_for_agent_supervisor_and_outsider(ticket, alice, sam, olga) -> None:
    body = api(alice).get(f"/api/v1/tickets/{ticket.pk}").json()
    assert body["messages"][0]["kind"] == "customer"
    assert [e["kind"] for e in body["events"]] == ["created", "assignee"]
    assert api(sam).get(f"/api/v1/tickets/{ticket.pk}").status_code == 200
    assert api(olga).get(f"/api/v1/tickets/{ticket.pk}").status_code == 404
    assert api(alice).get("/api/v1/tickets/999999").status_code == 404


def test_reply_by_agent_is_created_outsider_gets_404(ticket, alice, olga) -> None:
    url = f"/api/v1/tickets/{ticket.pk}/replies"
    response = api(alice).post(url, {"body": "On its way", "version": v(ticket)}, format="json")
    assert response.status_code == 201
    assert response.json()["kind"] == "public_reply"
    assert response.json()["ticket_version"] == v(ticket)
    assert (
        api(olga).post(url, {"body": "x", "version": v(ticket)}, format="json").status_code == 404
    )


def test_reply_without_version_is_a_400_with_field_errors(ticket, alice) -> None:
    response = api(alice).post(f"/api/v1/tickets/{ticket.pk}/replies", {"body": "x"}, format="json")
    assert response.status_code == 400
    assert "version" in response.json()["error"]["fields"]


def test_notes_add_and_edit(ticket, alice, sam) -> None:
    response = api(alice).post(
        f"/api/v1/tickets/{ticket.pk}/notes",
        {"body": "@sam look", "version": v(ticket)},
        format="json",
    )
    assert response.status_code == 201
    note_id = response.json()["id"]
    edited = api(alice).patch(
        f"/api/v1/tickets/{ticket.pk}/notes/{note_id}",
        {"body": "@sam please look", "version": v(ticket)},
        format="json",
    )
    assert edited.status_code == 200 and edited.json()["revisions"] == 1
    assert (
        api(alice)
        .patch(
            f"/api/v1/tickets/{ticket.pk}/notes/999",
            {"body": "x", "version": v(ticket)},
            format="json",
        )
        .status_code
        == 404
    )


def test_a_note_of_another_ticket_is_a_404_and_stays_unchanged(
    ticket, alice, queue, make_ticket
) -> None:
    other = make_ticket(queue, subject="Another parcel")
    note = services.ticket_note_add(
        actor=alice, ticket_id=ticket.pk, body="original", expected_version=v(ticket)
    )
    response = api(alice).patch(
        f"/api/v1/tickets/{other.pk}/notes/{note.pk}",
        {"body": "rewritten", "version": v(other)},
        format="json",
    )
    assert response.status_code == 404
    note.refresh_from_db()
    assert note.body == "original" and not note.revisions.exists()


def test_assignment_take_and_reassign_permissions(ticket, alice, sam, make_agent, queue) -> None:
    ben = make_agent("ben", queue)
    url = f"/api/v1/tickets/{ticket.pk}/assignment"
    denied = api(ben).post(url, {"take": True, "version": v(ticket)}, format="json")
    assert denied.status_code == 403
    moved = api(sam).post(url, {"assignee_id": ben.pk, "version": v(ticket)}, format="json")
    assert moved.status_code == 200 and moved.json()["assignee"]["id"] == ben.pk
    assert api(sam).post(url, {"version": v(ticket)}, format="json").status_code == 400


def test_status_priority_and_tags(ticket, alice) -> None:
    client = api(alice)
    base = f"/api/v1/tickets/{ticket.pk}"
    assert (
        client.post(
            f"{base}/status", {"status": "pending_customer", "version": v(ticket)}, format="json"
        ).json()["status"]
        == "pending_customer"
    )
    assert (
        client.post(
            f"{base}/priority", {"priority": "high", "version": v(ticket)}, format="json"
        ).json()["priority"]
        == "high"
    )
    assert client.put(
        f"{base}/tags", {"tags": ["VIP", "late"], "version": v(ticket)}, format="json"
    ).json()["tags"] == ["late", "vip"]
    chinese = client.put(
        f"{base}/tags", {"tags": ["退款", "VIP"], "version": v(ticket)}, format="json"
    )
    assert chinese.status_code == 200 and chinese.json()["tags"] == ["vip", "退款"]
    assert client.get(f"/api/v1/tickets?view=mine&tag={quote('退款')}").json()["count"] == 1
    assert client.get(f"/api/v1/tickets?view=mine&tag={quote(' ＶＩＰ')}").json()["count"] == 1  # noqa: RUF001
    refused = client.put(
        f"{base}/tags", {"tags": ["退款\t<b>"], "version": v(ticket)}, format="json"
    )
    assert refused.status_code == 400
    assert (
        client.post(
            f"{base}/status", {"status": "bogus", "version": v(ticket)}, format="json"
        ).status_code
        == 400
    )


def test_merge_is_for_supervisors(ticket, alice, sam, queue, make_ticket) -> None:
    other = make_ticket(queue)
    payload = {"target_id": ticket.pk, "version": v(other), "target_version": v(ticket)}
    assert (
        api(alice).post(f"/api/v1/tickets/{other.pk}/merge", payload, format="json").status_code
        == 403
    )
    response = api(sam).post(f"/api/v1/tickets/{other.pk}/merge", payload, format="json")
    assert response.status_code == 200 and response.json()["id"] == ticket.pk
    assert Ticket.objects.get(pk=other.pk).merged_into_id == ticket.pk


def test_service_principal_cannot_use_operator_endpoints(ticket) -> None:
    _, raw = make_service_token(["tickets:read", "tickets:write", "escalations:create"])
    client = token_client(raw)
    assert (
        client.post(
            f"/api/v1/tickets/{ticket.pk}/replies", {"body": "x", "version": 1}, format="json"
        ).status_code
        == 403
    )
    assert (
        client.post(
            f"/api/v1/tickets/{ticket.pk}/status", {"status": "open", "version": 1}, format="json"
        ).status_code
        == 403
    )
    # It reads only what it escalated: this ticket was created by an operator.
    assert client.get(f"/api/v1/tickets/{ticket.pk}").status_code == 404
    assert client.get("/api/v1/tickets").json()["count"] == 0


def test_a_token_without_the_read_scope_cannot_list(ticket) -> None:
    _, raw = make_service_token(["escalations:create"])
    assert token_client(raw).get("/api/v1/tickets").status_code == 403


def test_notifications_list_and_mark_read(ticket, alice) -> None:
    client = api(alice)
    listed = client.get("/api/v1/notifications?unread=1").json()
    assert listed["count"] == 1 and listed["results"][0]["kind"] == "assignment"
    assert client.post("/api/v1/notifications/read", {}, format="json").json() == {"marked": 1}
    assert client.get("/api/v1/notifications?unread=1").json()["count"] == 0


def test_schema_documents_every_inbox_endpoint(sam) -> None:
    schema = api(sam).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    for path in [
        "/api/v1/tickets",
        "/api/v1/tickets/{ticket_id}",
        "/api/v1/tickets/{ticket_id}/replies",
        "/api/v1/tickets/{ticket_id}/notes",
        "/api/v1/tickets/{ticket_id}/notes/{note_id}",
        "/api/v1/tickets/{ticket_id}/assignment",
        "/api/v1/tickets/{ticket_id}/status",
        "/api/v1/tickets/{ticket_id}/merge",
        "/api/v1/escalations",
    ]:
        assert path in paths, path
    assert paths["/api/v1/escalations"]["post"]["operationId"] == "escalations_create"


def test_customer_message_relay_by_the_service_principal(alice, queue) -> None:
    principal, raw = make_service_token(["escalations:create", "tickets:write", "tickets:read"])
    join(alice, queue, on_duty=True)
    result = services.ticket_open_for_escalation(
        actor=principal,
        customer_name="Cy",
        category="customer_request",
        reason="asked",
        summary="s",
        transcript=[{"role": "customer", "content": "human please"}],
        requested_action="call me",
        queue_slug="billing",
    )
    client = token_client(raw)
    response = client.post(
        f"/api/v1/tickets/{result.ticket_id}/customer-messages",
        {"body": "Still waiting"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="relay-1",
    )
    assert response.status_code == 201 and response.json()["kind"] == "customer"
    detail = client.get(f"/api/v1/tickets/{result.ticket_id}").json()
    assert all(m["kind"] not in ("internal_note", "system") for m in detail["messages"])
    assert detail["events"] == []


def test_fast_list_and_detail_output_match_the_documented_serializers(ticket, alice, sam) -> None:
    from tickets import selectors
    from tickets.serializers.fast_paths import ticket_detail, ticket_row, ticket_row_values
    from tickets.serializers.tickets import TicketDetailSerializer, TicketListItemSerializer

    services.ticket_note_add(actor=alice, ticket_id=ticket.pk, body="n", expected_version=v(ticket))
    services.ticket_tags_set(
        actor=alice, ticket_id=ticket.pk, tags=["b", "a"], expected_version=v(ticket)
    )
    listed = selectors.ticket_list_for_inbox(operator=sam, view="all")
    row = listed.get(pk=ticket.pk)
    documented = TicketListItemSerializer(row).data
    assert ticket_row(row) == documented
    (values,) = selectors.ticket_rows(listed, ids=[ticket.pk])
    tags = selectors.tag_names_by_ticket(ticket_ids=[ticket.pk])[ticket.pk]
    assert ticket_row_values(values, tags) == documented
    detail = selectors.ticket_get_for_operator(operator=sam, ticket_id=ticket.pk)
    for internal in (True, False):
        expected = TicketDetailSerializer(detail, context={"internal": internal}).data
        assert ticket_detail(detail, internal=internal) == expected


def test_fast_list_output_matches_for_an_escalated_ticket(sam, queue) -> None:
    from tickets import selectors
    from tickets.serializers.fast_paths import ticket_row_values
    from tickets.serializers.tickets import TicketListItemSerializer

    principal, _ = make_service_token(["escalations:create"])
    result = services.ticket_open_for_escalation(
        actor=principal,
        customer_name="Eve",
        category="out_of_scope",
        reason="r",
        summary="s",
        transcript=[{"role": "user", "content": "hi"}],
        requested_action="a",
        queue_slug="billing",
    )
    listed = selectors.ticket_list_for_inbox(operator=sam, view="escalated")
    documented = TicketListItemSerializer(listed.get(pk=result.ticket_id)).data
    assert documented["escalation_category"] == "out_of_scope" and documented["assignee"] is None
    (values,) = selectors.ticket_rows(listed, ids=[result.ticket_id])
    tags = selectors.tag_names_by_ticket(ticket_ids=[result.ticket_id])[result.ticket_id]
    assert ticket_row_values(values, tags) == documented


def test_list_pages_keep_the_sort_order_and_a_fixed_query_count(
    sam, queue, make_ticket, django_assert_max_num_queries
) -> None:
    created = [make_ticket(queue, priority=p).pk for p in ("low", "urgent", "high", "normal")]
    client = api(sam)
    client.get("/api/v1/tickets?view=all")
    with django_assert_max_num_queries(10):  # session, user, device, 2 perms + 4 for the page
        body = client.get("/api/v1/tickets?view=all&sort=priority&page_size=2").json()
    assert body["count"] == 4
    assert [row["id"] for row in body["results"]] == [created[1], created[2]]
    page2 = client.get("/api/v1/tickets?view=all&sort=priority&page_size=2&page=2").json()
    assert [row["id"] for row in page2["results"]] == [created[3], created[0]]


def test_a_search_page_matches_the_text_for_its_count_and_its_ids_not_again_for_its_rows(
    sam, queue, make_ticket
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    found = [make_ticket(queue, subject=f"Parcel lost {n}").pk for n in range(3)]
    make_ticket(queue, subject="Something else", customer_message="Hello")
    client = api(sam)
    with CaptureQueriesContext(connection) as captured:
        body = client.get("/api/v1/tickets?view=all&q=parcel").json()
    assert sorted(row["id"] for row in body["results"]) == sorted(found)
    assert body["results"][0]["subject"].startswith("Parcel lost")
    table = "tickets_ticketsearch" if connection.vendor == "postgresql" else "tickets_ticket_search"
    searching = [q["sql"] for q in captured.captured_queries if table in q["sql"]]
    # How common the words are (one look at the index: tickets.selectors.tickets
    # search_filter), the count, the page's ids; the rows of those ids match nothing again.
    assert len(searching) == 3
    assert not any('"tickets_ticket"."subject"' in sql for sql in searching)


def test_api_detail_matches_the_documented_serializer_with_edited_notes(ticket, alice, sam) -> None:
    from tickets import selectors
    from tickets.serializers.tickets import TicketDetailSerializer

    note = services.ticket_note_add(
        actor=alice, ticket_id=ticket.pk, body="first", expected_version=v(ticket)
    )
    for text in ("second", "third"):
        services.ticket_note_edit(
            actor=alice, ticket_id=ticket.pk, note_id=note.pk, body=text, expected_version=v(ticket)
        )
    services.ticket_reply(actor=alice, ticket_id=ticket.pk, body="hi", expected_version=v(ticket))
    full = selectors.ticket_get_for_operator(operator=sam, ticket_id=ticket.pk)
    expected = TicketDetailSerializer(full, context={"internal": True}).data
    body = api(sam).get(f"/api/v1/tickets/{ticket.pk}").json()
    assert body == expected
    assert [m["revisions"] for m in body["messages"] if m["id"] == note.pk] == [2]


def test_api_detail_for_a_service_principal_matches_the_documented_serializer(sam, queue) -> None:
    from tickets import selectors
    from tickets.serializers.tickets import TicketDetailSerializer

    principal, raw = make_service_token(["escalations:create", "tickets:read"])
    result = services.ticket_open_for_escalation(
        actor=principal,
        customer_name="Eve",
        category="dispute",
        reason="r",
        summary="s",
        transcript=[
            {"role": "user", "content": "hi"},
            {"role": "tool", "content": "lookup"},
            {"role": "assistant", "content": "passing on"},
        ],
        requested_action="a",
        queue_slug="billing",
    )
    full = selectors.ticket_get_for_operator(operator=sam, ticket_id=result.ticket_id)
    expected = TicketDetailSerializer(full, context={"internal": False}).data
    body = token_client(raw).get(f"/api/v1/tickets/{result.ticket_id}").json()
    assert body == expected
    assert [m["kind"] for m in body["messages"]] == ["customer", "ai_agent"]


def test_api_detail_reads_a_fixed_number_of_queries(
    ticket, alice, sam, django_assert_max_num_queries
) -> None:
    for n in range(5):
        services.ticket_note_add(
            actor=alice, ticket_id=ticket.pk, body=f"n{n}", expected_version=v(ticket)
        )
    client = api(sam)
    client.get(f"/api/v1/tickets/{ticket.pk}")
    # session, user, device, 2 permission lookups; ticket, tags, messages, timeline
    with django_assert_max_num_queries(9):
        assert client.get(f"/api/v1/tickets/{ticket.pk}").status_code == 200
