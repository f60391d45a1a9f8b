"""POST /api/v1/escalations: the AI agent hands a conversation to a named human."""

from __future__ import annotations

import copy
import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from identity.models import AuditEvent
from tests.conftest import make_service_token, token_client, verified_client
from tests.tickets.conftest import join
from tickets import routing
from tickets.models import (
    Customer,
    Escalation,
    Message,
    Notification,
    OperatorLoad,
    QueueMembership,
    SlaTarget,
    Tag,
    Ticket,
)

URL = "/api/v1/escalations"
PAYLOAD = {
    "customer": {"name": "Dora Diaz", "email": "dora@example.test", "external_id": "cus_42"},
    "category": "dispute",
    "reason": "Customer disputes a charge the policy does not let me refund.",
    "summary": "Charged twice for order 1001; wants the duplicate refunded.",
    "transcript": [
        {"role": "customer", "content": "You charged me twice!"},
        {"role": "assistant", "content": "I can see two charges. Let me get a colleague."},
    ],
    "requested_action": "Refund the duplicate charge of EUR 49.00",
    "queue": "billing",
}


@pytest.fixture
def agent_client(db):
    _, raw = make_service_token(["escalations:create", "tickets:read"])
    return token_client(raw)


def post(client, payload=None, key="esc-1"):
    return client.post(URL, payload or PAYLOAD, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_it_creates_a_routed_ticket_and_names_the_owner(agent_client, alice, queue) -> None:
    join(alice, queue, on_duty=True)
    response = post(agent_client)
    assert response.status_code == 201
    body = response.json()
    assert body["owner_name"] == "Alice" and body["owner"]["id"] == alice.pk
    assert body["unrouted"] is False and body["priority"] == "urgent" and body["queue"] == "billing"
    ticket = Ticket.objects.get(pk=body["ticket_id"])
    assert (
        ticket.status == "escalated" and ticket.channel == "ai_agent" and ticket.assignee == alice
    )
    assert ticket.customer.external_id == "cus_42"
    kinds = list(ticket.messages.values_list("kind", flat=True))
    # The escalation itself is the ticket page's card, not a repeated system message.
    assert kinds == ["customer", "ai_agent"]
    escalation = Escalation.objects.get(ticket=ticket)
    assert escalation.transcript[0]["content"] == "You charged me twice!"
    assert sorted(ticket.tags.values_list("name", flat=True)) == ["ai-escalation", "dispute"]
    assert (
        AuditEvent.objects.filter(action="ticket.escalate", actor_label="agent-runtime").count()
        == 1
    )


def test_nobody_on_duty_returns_null_owner_and_flags_unrouted(agent_client, alice, queue) -> None:
    join(alice, queue, on_duty=False)
    body = post(agent_client).json()
    assert body["owner"] is None and body["owner_name"] is None and body["unrouted"] is True
    assert Ticket.objects.get(pk=body["ticket_id"]).unrouted


@pytest.mark.parametrize(
    ("category", "priority"),
    [
        ("dispute", "urgent"),
        ("agent_failure", "high"),
        ("policy_exception", "high"),
        ("customer_request", "normal"),
        ("out_of_scope", "low"),
    ],
)
def test_priority_comes_from_the_category(agent_client, queue, category, priority) -> None:
    payload = {**PAYLOAD, "category": category}
    assert post(agent_client, payload, key=category).json()["priority"] == priority


def test_a_retry_with_the_same_key_returns_the_original_answer_and_creates_nothing(
    agent_client, alice, queue
) -> None:
    join(alice, queue, on_duty=True)
    first = post(agent_client)
    again = post(agent_client)
    assert again.status_code == 201 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Ticket.objects.count() == 1 and Escalation.objects.count() == 1


def test_the_same_key_with_a_different_body_is_a_422(agent_client, queue) -> None:
    post(agent_client)
    changed = {**PAYLOAD, "summary": "Something else"}
    response = post(agent_client, changed)
    assert response.status_code == 422
    assert Ticket.objects.count() == 1


def test_a_new_key_creates_a_new_ticket(agent_client, queue) -> None:
    post(agent_client, key="a")
    post(agent_client, key="b")
    assert Ticket.objects.count() == 2
    assert Customer.objects.count() == 1  # same external id, same customer


def test_missing_idempotency_key_is_refused(agent_client, queue) -> None:
    response = agent_client.post(URL, PAYLOAD, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "idempotency_key_missing"
    assert not Ticket.objects.exists()


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda p: p.update(category="angry"), "category"),
        (lambda p: p.pop("reason"), "reason"),
        (lambda p: p.update(summary=""), "summary"),
        (lambda p: p.update(transcript=[]), "transcript"),
        (
            lambda p: p.update(transcript=[{"role": "wizard", "content": "hi"}]),
            "transcript.0.role",
        ),
        (lambda p: p["customer"].update(email="not-an-email"), "customer.email"),
        (lambda p: p.pop("customer"), "customer"),
        (lambda p: p.pop("requested_action"), "requested_action"),
    ],
)
def test_malformed_input_is_a_400_with_field_errors_and_creates_nothing(
    agent_client, queue, mutate, field
) -> None:
    payload = copy.deepcopy(PAYLOAD)
    mutate(payload)
    response = post(agent_client, payload)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_failed" and field in error["fields"], error
    assert (
        not Ticket.objects.exists()
        and not Customer.objects.exists()
        and not Message.objects.exists()
    )


def test_unknown_queue_is_a_field_error(agent_client, queue) -> None:
    response = post(agent_client, {**PAYLOAD, "queue": "nope"})
    assert response.status_code == 400 and "queue" in response.json()["error"]["fields"]
    assert not Ticket.objects.exists()


def test_without_a_queue_the_default_escalation_queue_is_used(agent_client, db) -> None:
    payload = {k: v for k, v in PAYLOAD.items() if k != "queue"}
    assert post(agent_client, payload).json()["queue"] == "general"


def test_a_token_without_the_scope_is_refused(queue) -> None:
    _, raw = make_service_token(["tickets:read"])
    assert post(token_client(raw)).status_code == 403
    assert not Ticket.objects.exists()


def test_a_human_session_cannot_escalate(sam, queue) -> None:
    response = verified_client(sam, api=True).post(
        URL, PAYLOAD, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 403
    assert not Ticket.objects.exists()


def test_the_principal_reads_back_the_ticket_it_escalated(agent_client, alice, queue) -> None:
    join(alice, queue, on_duty=True)
    ticket_id = post(agent_client).json()["ticket_id"]
    detail = agent_client.get(f"/api/v1/tickets/{ticket_id}").json()
    assert detail["assignee"]["name"] == "Alice" and detail["escalation"]["category"] == "dispute"


def test_a_routed_escalation_keeps_the_timeline_of_an_insert_then_a_claim(
    agent_client, alice, queue
) -> None:
    """The new ticket is inserted already assigned; its timeline, version, SLA clocks, the
    owner's notification, round-robin time and load counter are those of a claim."""
    join(alice, queue, on_duty=True)
    SlaTarget.objects.create(
        queue=queue,
        priority="urgent",
        first_response_minutes=7,
        next_response_minutes=11,
        resolution_minutes=13,
    )
    body = post(agent_client).json()
    ticket = Ticket.objects.get(pk=body["ticket_id"])
    assert ticket.assignee == alice and not ticket.unrouted and ticket.version == 2
    assert ticket.assigned_at == ticket.created_at
    assert ticket.first_response_due_at == ticket.created_at + dt.timedelta(minutes=7)
    assert ticket.resolution_due_at == ticket.created_at + dt.timedelta(minutes=13)
    events = list(ticket.events.order_by("id").values_list("kind", "version", "actor_label"))
    assert events == [("created", 1, "AI agent runtime"), ("assignee", 2, "Routing")]
    assert ticket.events.get(kind="assignee").after == {
        "assignee": alice.pk,
        "assignee_name": "Alice",
    }
    assert Notification.objects.filter(
        recipient=alice, kind="assignment", url=f"/tickets/{ticket.pk}/"
    ).exists()
    assert QueueMembership.objects.get(queue=queue, operator=alice).last_assigned_at is not None
    assert OperatorLoad.objects.get(operator=alice).active_tickets == 1
    assert routing.load_recount() == {}
    audit = AuditEvent.objects.get(action="ticket.escalate")
    assert audit.after["owner"] == alice.pk and audit.after["routed"] == [ticket.pk]


def test_an_older_waiting_ticket_takes_the_last_slot_before_the_escalation(
    agent_client, alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=False, cap=1)
    older = make_ticket(queue)
    assert older.unrouted
    join(alice, queue, on_duty=True, cap=1)
    body = post(agent_client).json()
    assert body["unrouted"] is True and body["owner"] is None
    older.refresh_from_db()
    assert older.assignee == alice and not older.unrouted
    new = Ticket.objects.get(pk=body["ticket_id"])
    assert new.unrouted and new.assignee is None and new.version == 1
    assert list(new.events.values_list("kind", flat=True)) == ["created"]
    audit = AuditEvent.objects.get(action="ticket.escalate")
    assert audit.after["owner"] is None and audit.after["routed"] == [older.pk]
    assert OperatorLoad.objects.get(operator=alice).active_tickets == 1


def test_waiting_tickets_go_first_and_the_escalation_gets_the_next_slot(
    agent_client, alice, queue, make_ticket
) -> None:
    join(alice, queue, on_duty=False, cap=2)
    older = make_ticket(queue)
    join(alice, queue, on_duty=True, cap=2)
    body = post(agent_client).json()
    assert body["owner"]["id"] == alice.pk
    older.refresh_from_db()
    assert older.assignee == alice
    audit = AuditEvent.objects.get(action="ticket.escalate")
    assert audit.after["routed"] == [older.pk, body["ticket_id"]]
    assert OperatorLoad.objects.get(operator=alice).active_tickets == 2
    assert routing.load_recount() == {}


def test_tags_are_linked_whether_they_exist_already_or_not(agent_client, queue) -> None:
    def tags_of(body) -> list[str]:
        return sorted(Ticket.objects.get(pk=body["ticket_id"]).tags.values_list("name", flat=True))

    assert tags_of(post(agent_client, key="k1").json()) == ["ai-escalation", "dispute"]
    tagged = {**PAYLOAD, "tags": ["VIP", "ai-escalation"]}
    assert tags_of(post(agent_client, tagged, key="k2").json()) == [
        "ai-escalation",
        "dispute",
        "vip",
    ]
    assert tags_of(post(agent_client, tagged, key="k3").json()) == [
        "ai-escalation",
        "dispute",
        "vip",
    ]
    assert Tag.objects.count() == 3


def test_the_queue_is_locked_by_the_read_that_fetches_it(agent_client, alice, queue) -> None:
    # Routing needs the queue row locked; the escalation's own read of the queue (with its
    # SLA targets) takes that lock, instead of a lock statement of its own.
    join(alice, queue, on_duty=True)
    post(agent_client, key="warm")  # the token's last-used time is written once a minute
    payload = {**PAYLOAD, "customer": {"name": "Eve", "email": "eve@example.test"}}
    with CaptureQueriesContext(connection) as captured:
        assert post(agent_client, payload, key="esc-2").status_code == 201
    reads_queue = re.compile(r'FROM "?tickets_queue"?\s')
    queue_reads = [q["sql"] for q in captured.captured_queries if reads_queue.search(q["sql"])]
    assert len(queue_reads) == 1
    if connection.features.has_select_for_update:
        assert re.search(r"FOR UPDATE OF \S+\s*$", queue_reads[0])
    assert Ticket.objects.get(customer__email="eve@example.test").assignee == alice


def test_the_agents_tool_calls_are_kept_on_its_turn_with_their_results_and_errors(
    agent_client, queue
) -> None:
    payload = copy.deepcopy(PAYLOAD)
    payload["transcript"] = [
        {"role": "customer", "content": "You charged me twice!"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "name": "list_charges", "arguments": {"order_id": "1001"}},
                {"id": "c2", "name": "refund_charge", "arguments": {"charge_id": "ch_2"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "[ch_1, ch_2]"},
        {"role": "tool", "tool_call_id": "c2", "content": "not allowed", "is_error": True},
        {"role": "tool", "content": "an answer to no call stays a message"},
    ]
    response = post(agent_client, payload, key="esc-tools")
    assert response.status_code == 201, response.json()
    messages = list(Message.objects.filter(ticket_id=response.json()["ticket_id"]))
    assert [m.kind for m in messages] == ["customer", "ai_agent", "system"]
    assert messages[1].body == "" and messages[1].tool_calls == [
        {"name": "list_charges", "arguments": {"order_id": "1001"}, "result": "[ch_1, ch_2]"},
        {"name": "refund_charge", "arguments": {"charge_id": "ch_2"}, "error": "not allowed"},
    ]
    assert messages[0].tool_calls is None and messages[2].tool_calls is None


@pytest.mark.parametrize(
    "turn",
    [
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": "x", "tool_calls": [{"name": ""}]},
        {"role": "assistant", "content": "x", "tool_calls": [{"name": "a", "arguments": [1]}]},
    ],
)
def test_a_turn_without_text_or_a_tool_call_without_a_name_is_refused(
    agent_client, queue, turn
) -> None:
    payload = copy.deepcopy(PAYLOAD)
    payload["transcript"] = [{"role": "customer", "content": "You charged me twice!"}, turn]
    response = post(agent_client, payload, key="esc-bad-tools")
    assert response.status_code == 400
    assert not Ticket.objects.exists()
