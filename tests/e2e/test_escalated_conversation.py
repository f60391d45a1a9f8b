"""The escalated conversation (issue 15, item 8), read by a supervisor in a real browser at a
desk's and at a phone's width: the AI agent's tool calls (name, arguments, result or error)
collapsed until opened, the customer's other tickets, no internal version number, and the
escalation shown once (its card), not again as a system message."""

from __future__ import annotations

import re
from typing import Any

import pytest

from identity.models import Operator
from tests.conftest import PASSWORD, make_service_token
from tests.e2e.conftest import read, screenshot, sign_in
from tickets.services import ticket_open_for_escalation

pytestmark = pytest.mark.django_db(transaction=True)

TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "customer", "content": "My parcel for order W123 never arrived."},
    {
        "role": "assistant",
        "content": "Let me look that order up.",
        "tool_calls": [
            {"id": "call-1", "name": "get_order_details", "arguments": {"order_id": "W123"}},
            {"id": "call-2", "name": "track_parcel", "arguments": {"carrier": "DHL"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call-1", "content": '{"status": "delivered"}'},
    {
        "role": "tool",
        "tool_call_id": "call-2",
        "content": "tracking service unavailable (HTTP 503)",
        "is_error": True,
    },
    {"role": "assistant", "content": "I cannot confirm the delivery; a colleague will help."},
]


def _escalate(subject: str, transcript: list[dict[str, Any]]) -> int:
    principal, _ = make_service_token(["escalations:create"])
    return ticket_open_for_escalation(
        actor=principal,
        customer_name="Omar Haddad",
        customer_email="omar@example.com",
        category="agent_failure",
        reason="Tracking tool failed.",
        summary="Parcel reported missing; tracking unavailable.",
        transcript=transcript,
        requested_action="Confirm delivery with the carrier",
        subject=subject,
    ).ticket_id


def test_the_agents_tool_calls_are_shown_collapsed_with_the_customers_other_tickets(
    person_page: Any, sam: Operator
) -> None:
    earlier = _escalate("Wrong size sent", [{"role": "customer", "content": "Wrong size."}])
    ticket_id = _escalate("Parcel never arrived", TRANSCRIPT)
    page = sign_in(person_page, sam, PASSWORD)
    page.goto(f"/tickets/{ticket_id}/")
    read(page)

    calls = page.locator("[data-testid=tool-call]")
    assert calls.count() == 2
    for i in range(2):
        assert calls.nth(i).get_attribute("open") is None  # collapsed by default
    assert not page.get_by_text('"order_id": "W123"').is_visible()
    screenshot(page, "escalation-collapsed")

    first, second = calls.nth(0), calls.nth(1)
    assert "get_order_details" in first.locator("summary").inner_text()
    first.locator("summary").click()
    read(page)
    body = first.inner_text()
    assert '"order_id": "W123"' in body and "delivered" in body
    second.locator("summary").click()
    read(page)
    assert "error" in second.locator("summary").inner_text()
    assert "tracking service unavailable (HTTP 503)" in second.inner_text()
    screenshot(page, "escalation-tool-calls-open")

    # The tool answers are inside their calls, not messages of their own.
    assert page.locator("li.msg").count() == 3
    # The escalation is its card, once; not repeated as a system message.
    assert page.locator("li.msg-system").count() == 0
    assert page.locator("text=Escalated by the AI agent").count() == 1

    others = page.locator("[data-testid=customer-tickets]")
    assert "Wrong size sent" in others.inner_text()
    assert others.locator(f"a[href='/tickets/{earlier}/']").is_visible()

    # No internal version number anywhere a person reads.
    assert not re.search(r"\bv\d+\b", page.inner_text("main"))
