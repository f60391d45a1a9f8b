"""The Content-Security-Policy in a real browser (issue 14, finding 7): every page an operator
uses and the API docs load with no script refused, and the behaviour that moved out of inline
attributes (the inbox's select-all box, the merge confirmation) still works."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.tickets.conftest import join
from tickets import services
from tickets.models import Queue

pytestmark = pytest.mark.django_db(transaction=True)

PAGES = ["/", "/tickets/?view=all", "/payments/approvals/", "/payments/", "/api/docs/"]


@pytest.fixture
def tickets(sam: Any) -> list[Any]:
    queue = Queue.objects.create(name="Billing", slug="billing")
    join(sam, queue, on_duty=True)
    return [
        services.ticket_open_for_customer(
            actor=sam,
            subject=f"Parcel {i} never arrived",
            customer_message="Where is it?",
            customer_name="Carla Customer",
            customer_email=f"c{i}@example.test",
            queue_id=queue.pk,
        )
        for i in range(3)
    ]


def _shot(page: Any, tmp_path: Path, name: str) -> None:
    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 900})
        path = Path(os.environ.get("E2E_SCREENSHOTS", str(tmp_path))) / f"{name}-{width}.png"
        page.screenshot(path=str(path), full_page=True)


def test_pages_load_with_no_script_refused_and_moved_behaviour_works(
    logged_in_page: Any, sam: Any, tickets: list[Any], tmp_path: Path
) -> None:
    page = logged_in_page(sam)
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    for url in PAGES:
        response = page.goto(url)
        assert response is not None and response.status == 200, url
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
    assert page.locator("#swagger-ui .info").count() == 1, "Swagger UI did not start"
    _shot(page, tmp_path, "csp-api-docs")
    assert refused == []

    page.goto("/tickets/?view=all")
    boxes = page.locator("input[name=t]")
    assert boxes.count() == 3
    page.check("input[data-select-all]")
    assert all(boxes.nth(i).is_checked() for i in range(3))
    page.uncheck("input[data-select-all]")
    assert not any(boxes.nth(i).is_checked() for i in range(3))
    _shot(page, tmp_path, "csp-inbox")

    first, second = tickets[0], tickets[1]
    page.goto(f"/tickets/{first.pk}/")
    questions: list[str] = []

    def dismiss(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    page.fill("#merge-target", str(second.pk))
    page.click(".merge-form button[type=submit]")
    assert questions == [f"Merge this ticket into #{second.pk}? This closes #{first.pk}."]
    assert page.url.endswith(f"/tickets/{first.pk}/")
    first.refresh_from_db()
    assert first.status != "merged"
    assert refused == []
